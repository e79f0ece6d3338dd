// Package frontmatter splits a Markdown file into its YAML front matter and
// its body, and decodes the front matter.
//
// Front matter is the block a file opens with: a line "---", YAML lines, and
// a closing line "---" (or "..."). Instruction rules (`paths:` globs) and
// Agent Skills (`name`, `description`) carry their metadata this way. A file
// that does not open with "---" has no front matter: its whole content is the
// body. A block that opens but never closes is an error, never a body, so a
// typo cannot turn metadata into instructions.
//
// Errors name the line in the whole file (the opening "---" is line 1), so a
// message reads like `SKILL.md:3: front matter: …`.
package frontmatter
