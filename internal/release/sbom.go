package release

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"time"
)

// spdx is an SPDX 2.3 document (JSON) for one archive: the archive as a
// file with its SHA-256, the binary's main module, every module it was
// built with (from its build info) and the Go standard library, with
// purls and the relationships between them.
func spdx(docName, archive, archiveSum, version string, info *debug.BuildInfo, at time.Time) ([]byte, error) {
	type ref struct {
		Category string `json:"referenceCategory"`
		Type     string `json:"referenceType"`
		Locator  string `json:"referenceLocator"`
	}
	type pkg struct {
		Name             string `json:"name"`
		SPDXID           string `json:"SPDXID"`
		VersionInfo      string `json:"versionInfo"`
		DownloadLocation string `json:"downloadLocation"`
		FilesAnalyzed    bool   `json:"filesAnalyzed"`
		ExternalRefs     []ref  `json:"externalRefs"`
	}
	type rel struct {
		Element string `json:"spdxElementId"`
		Type    string `json:"relationshipType"`
		Related string `json:"relatedSpdxElement"`
	}
	mainVersion := version
	pkgs := []pkg{{Name: info.Main.Path, SPDXID: "SPDXRef-Package-main", VersionInfo: mainVersion,
		DownloadLocation: "NOASSERTION", ExternalRefs: []ref{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + info.Main.Path + "@" + mainVersion}}}}
	rels := []rel{{"SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-File-archive"}, {"SPDXRef-File-archive", "CONTAINS", "SPDXRef-Package-main"}}
	add := func(id, name, v string) {
		pkgs = append(pkgs, pkg{Name: name, SPDXID: id, VersionInfo: v, DownloadLocation: "NOASSERTION",
			ExternalRefs: []ref{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + name + "@" + v}}})
		rels = append(rels, rel{"SPDXRef-Package-main", "DEPENDS_ON", id})
	}
	add("SPDXRef-Package-stdlib", "stdlib", info.GoVersion)
	for i, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		add(fmt.Sprintf("SPDXRef-Package-dep-%d", i), m.Path, m.Version)
	}
	doc := map[string]any{
		"spdxVersion":       "SPDX-2.3",
		"dataLicense":       "CC0-1.0",
		"SPDXID":            "SPDXRef-DOCUMENT",
		"name":              docName,
		"documentNamespace": "https://github.com/agentlineage/lineage/releases/" + version + "/" + docName + "-" + archiveSum[:16],
		"creationInfo": map[string]any{
			"created":  at.UTC().Format(time.RFC3339),
			"creators": []string{"Tool: lineage internal/release"},
		},
		"files": []map[string]any{{
			"fileName":  "./" + archive,
			"SPDXID":    "SPDXRef-File-archive",
			"checksums": []map[string]string{{"algorithm": "SHA256", "checksumValue": archiveSum}},
		}},
		"packages":      pkgs,
		"relationships": rels,
	}
	return json.MarshalIndent(doc, "", "  ")
}
