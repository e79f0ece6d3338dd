package triad

import "fmt"

// knownSchemaVersions are the schemaVersion values CLIA has written.
var knownSchemaVersions = map[string]bool{
	"0.1.0": true, "0.2.0": true, "0.3.0": true, "0.3.1": true, "0.4.0": true, "0.5.0": true,
	"clia.triad.agent.v1.json": true, "clia.triad.agenda.v1.json": true, "clia.triad.agency.v1.json": true,
}

// SchemaVersion returns the document's schema version, read from
// "schemaVersion" or, in old files, "$schemaVersion".
func SchemaVersion(doc *Value) string {
	if v := doc.Str("schemaVersion"); v != "" {
		return v
	}
	return doc.Str("$schemaVersion")
}

// SchemaWarning returns a warning for a missing or unknown schema version,
// or "" when the version is known. The document is used either way.
func SchemaWarning(file string, doc *Value) string {
	v := SchemaVersion(doc)
	switch {
	case v == "":
		return fmt.Sprintf("%s: no schemaVersion", file)
	case !knownSchemaVersions[v]:
		return fmt.Sprintf("%s: unknown schemaVersion %q", file, v)
	}
	return ""
}
