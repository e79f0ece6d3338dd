package cli

import (
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractFindCmd(env *Env, f *tractFlags) *cobra.Command {
	var (
		o      tract.FindOptions
		typ    string
		meta   []string
		asJSON jsonFlag
	)
	cmd := &cobra.Command{
		Use:   "find [TEXT] [--type T] [--role R] [--tag NAME] [--meta K=V]... [--all-tracts] [-n N]",
		Short: "Find commits by words, type, role, tag or metadata",
		Long: `find lists the commits whose content holds every word of TEXT (words are
runs of letters and digits, matched whole and case-insensitively through the
store's full-text index) and that pass every filter given, oldest first.
It searches the tract's own commits on any branch; --all-tracts searches
every tract. --tag NAME keeps the commit the tag names; --meta K=V keeps
commits whose metadata (commit --meta) holds V under key K (a string, or
the JSON text of a number, true, false or null).`,
		Args: rangeArgs(0, 1),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			if len(args) == 1 {
				o.Text = args[0]
			}
			o.Type = tract.Type(typ)
			for _, kv := range meta {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usageError("--meta %q: want KEY=VALUE", kv)
				}
				if o.Meta == nil {
					o.Meta = map[string]string{}
				}
				o.Meta[k] = v
			}
			if err := o.Validate(); err != nil {
				return optionError(err)
			}
			found, err := s.repo.Find(cmd.Context(), s.tract, o)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, found)
			}
			for _, fd := range found {
				fmt.Fprintln(env.Stdout, tractFoundLine(fd))
			}
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&typ, "type", "", "only this content type")
	fl.StringVar(&o.Role, "role", "", "only this role")
	fl.StringVar(&o.Tag, "tag", "", "only the commit this tag names")
	fl.StringArrayVar(&meta, "meta", nil, "only commits whose metadata holds VALUE under KEY (KEY=VALUE, repeatable)")
	fl.BoolVar(&o.AllTracts, "all-tracts", false, "search every tract, not only this one's commits")
	fl.IntVarP(&o.Limit, "limit", "n", 0, "at most N results (0: all)")
	asJSON.add(cmd, "")
	return cmd
}

// tractFoundLine is "HASH8 TRACT TYPE/ROLE: first line of the text".
func tractFoundLine(fd tract.Found) string {
	kind := string(fd.Content.Type)
	if fd.Content.Role != "" {
		kind += "/" + fd.Content.Role
	}
	text, _, _ := strings.Cut(fd.Content.Text, "\n")
	if fd.Content.Type == tract.TypeTools {
		names := make([]string, len(fd.Content.Tools))
		for i, t := range fd.Content.Tools {
			names[i] = t.Name
		}
		text = strings.Join(names, ", ")
	}
	if r := []rune(text); len(r) > 72 {
		text = string(r[:72]) + "…"
	}
	return fmt.Sprintf("%s %s %s: %s", fd.Commit.Hash.Short(), fd.Tract, kind, text)
}
