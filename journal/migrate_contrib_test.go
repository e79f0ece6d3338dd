package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/agentstest"
)

// migrate lifts both legacy contribution shapes to CLIA's grouped form,
// keeping weights, evidence, participants and unknown keys; grouped
// entries are left alone and a second run changes nothing.
func TestMigrateLiftsLegacyContributions(t *testing.T) {
	root := tempRoot(t)
	agency := ".clia/agents/s/s@x.agency.triad.json"
	write(t, root, map[string]string{".git": "<dir>", agency: `{
  "schemaVersion": "0.4.0",
  "entries": [
    {"timestamp": "2026-03-02T00:00:00Z", "contributions": ["code", "doc"], "participants": ["a", "b"]},
    {"timestamp": "2026-03-01T00:00:00Z", "contributions": ["code"]},
    {"timestamp": "2026-02-01T00:00:00Z", "contributions": [{"agent": "w", "type": "doc"}, {"agent": "v", "type": "code", "weight": 2.50, "x-k": true}, {"agent": "w", "type": "test", "evidence": "ran"}]},
    {"timestamp": "2026-01-01T00:00:00Z", "contributions": [{"by": "s", "types": [{"type": "doc", "weight": 1, "evidence": "e"}]}]}
  ]
}
`})
	opts := Options{Agents: agents.Options{Path: root}}
	if _, err := Migrate(context.Background(), opts, Tidy{Dir: ".", Write: true}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, agency))
	want := `{
  "schemaVersion": "0.4.0",
  "entries": [
    {
      "timestamp": "2026-03-02T00:00:00Z",
      "contributions": [
        {
          "by": "a",
          "types": [
            {
              "type": "code",
              "weight": 1,
              "evidence": "migrated"
            },
            {
              "type": "doc",
              "weight": 1,
              "evidence": "migrated"
            }
          ]
        },
        {
          "by": "b",
          "types": [
            {
              "type": "code",
              "weight": 1,
              "evidence": "migrated"
            },
            {
              "type": "doc",
              "weight": 1,
              "evidence": "migrated"
            }
          ]
        }
      ],
      "participants": [
        "a",
        "b"
      ]
    },
    {
      "timestamp": "2026-03-01T00:00:00Z",
      "contributions": [
        {
          "by": "s",
          "types": [
            {
              "type": "code",
              "weight": 1,
              "evidence": "migrated"
            }
          ]
        }
      ]
    },
    {
      "timestamp": "2026-02-01T00:00:00Z",
      "contributions": [
        {
          "by": "w",
          "types": [
            {
              "type": "doc",
              "weight": 1,
              "evidence": "migrated"
            },
            {
              "type": "test",
              "weight": 1,
              "evidence": "ran"
            }
          ]
        },
        {
          "by": "v",
          "types": [
            {
              "type": "code",
              "weight": 2.50,
              "evidence": "migrated",
              "x-k": true
            }
          ]
        }
      ]
    },
    {
      "timestamp": "2026-01-01T00:00:00Z",
      "contributions": [
        {
          "by": "s",
          "types": [
            {
              "type": "doc",
              "weight": 1,
              "evidence": "e"
            }
          ]
        }
      ]
    }
  ]
}
`
	if string(got) != want {
		t.Errorf("migrated:\n%s", got)
	}
	res, err := Migrate(context.Background(), opts, Tidy{Dir: ".", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Changed {
			t.Errorf("second run changes %s", r.File)
		}
	}
}

// The corpus identity document with {agent, type} contributions has none
// left after migrate.
func TestMigrateLiftsCorpusContributions(t *testing.T) {
	ws := filepath.Join(tempRoot(t), "ws")
	if err := agentstest.CopyTree(filepath.Join(corpusRoot(t), "wrkstrm-finance__mono@dff7e06"), ws); err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{".git": "<dir>"})
	if _, err := Migrate(context.Background(), Options{Agents: agents.Options{Path: ws}}, Tidy{Dir: ".", Write: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(ws, "private/universal/identity/wrkstrm-finance@rismay.substrate.agency.triad.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"agent"`) || !strings.Contains(string(b), `"by"`) {
		t.Errorf("legacy contributions left:\n%s", b)
	}
}
