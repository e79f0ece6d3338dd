package storetest

import (
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"ContextPressure", testContextPressure},
	})
}

// testContextPressure: the pressure is the compiled tokens over the stored
// budget; at warn-at it warns with a plan whose compression brings the
// context back under the threshold; status carries the same numbers.
func testContextPressure(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	for i := 0; i < 8; i++ {
		e.user("main", "a question with a handful of words in it")
	}
	p, err := e.repo.Pressure(e.ctx, "main")
	e.must(err)
	if p.Budget != nil || p.Ratio != nil || p.Warn || p.WarnAt != tract.DefaultWarnAt || p.Tokens != e.compile("main", tract.CompileOptions{}).Tokens {
		t.Fatalf("pressure without a budget: %+v", p)
	}
	_, err = e.repo.SetConfig(e.ctx, "main", "budget", "120")
	e.must(err)
	_, err = e.repo.SetConfig(e.ctx, "main", "warn-at", "0.5")
	e.must(err)
	p, err = e.repo.Pressure(e.ctx, "main")
	e.must(err)
	if p.Budget == nil || *p.Budget != 120 || p.Ratio == nil || !p.Warn || p.Plan == nil || p.Plan.Target != 60 {
		t.Fatalf("pressure over warn-at: %+v", p)
	}
	st, err := e.repo.Status(e.ctx, "main")
	e.must(err)
	if st.Pressure == nil || *st.Pressure != *p.Ratio || !st.Warn || st.Plan == nil || *st.Plan != *p.Plan {
		t.Fatalf("status %+v, pressure %+v", st, p)
	}
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: p.Plan.Range, Summary: "Questions."})
	e.must(err)
	after, err := e.repo.Pressure(e.ctx, "main")
	e.must(err)
	if after.Warn || after.Tokens >= 60 {
		t.Fatalf("after the planned compress: %+v", after)
	}
	for _, bad := range []string{"0", "1.5", "x", "-0.2"} {
		_, err = e.repo.SetConfig(e.ctx, "main", "warn-at", bad)
		wantValidation(t, err, "warn-at")
	}
	cfg, err := e.repo.SetConfig(e.ctx, "main", "warn-at", "none")
	e.must(err)
	if cfg.WarnAt != tract.DefaultWarnAt {
		t.Fatalf("warn-at none: %+v", cfg)
	}
}
