package webui

import (
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// Graph geometry, in SVG user units.
const (
	laneWidth = 16
	rowHeight = 28
	nodeR     = 5
)

// graphNode is one commit drawn in the window.
type graphNode struct {
	Row, Lane int
	X, Y      int
	// Foreign is set when the commit was authored by another tract (work a
	// merge-from brought in by reference).
	Foreign bool
	Class   string
}

// graphEdge is a line from a commit to one of its parents, or out of the
// window (Open) when the parent is older than the window's last row.
type graphEdge struct {
	D     string // the SVG path
	Class string
}

// graphLayout places a window of log entries (newest first) on lanes the
// way `git log --graph` does: a commit takes the lane that waits for it
// (the first, when several lines wait for the same commit, which join it
// there), its first parent continues on that lane and each other parent
// opens a new one. Lanes are reused once free, so the drawing is as wide as
// the most lines open at once.
type graphLayout struct {
	Nodes  []graphNode
	Edges  []graphEdge
	Width  int
	Height int
}

type lane struct {
	awaits   tract.Hash
	fromRow  int
	fromLane int
	// fromTract is the child's author tract: a line whose parent another
	// tract authored crosses between tracts (a merge-from's edge into the
	// child's work, a child's first commit back to its spawn point).
	fromTract string
}

func layoutGraph(entries []tract.LogEntry, tractName string) graphLayout {
	var lanes []*lane
	g := graphLayout{}
	x := func(l int) int { return laneWidth/2 + l*laneWidth + 2 }
	y := func(r int) int { return rowHeight/2 + r*rowHeight }
	maxLane := 0
	for r, e := range entries {
		col := -1
		for i, l := range lanes {
			if l == nil || l.awaits != e.Hash {
				continue
			}
			if col < 0 {
				col = i
			}
		}
		if col < 0 {
			col = freeLane(&lanes)
		}
		for i, l := range lanes {
			if l == nil || l.awaits != e.Hash {
				continue
			}
			g.Edges = append(g.Edges, graphEdge{D: path(x(l.fromLane), y(l.fromRow), x(i), x(col), y(r)), Class: edgeClass(i, l.fromTract != e.Tract)})
			lanes[i] = nil
		}
		foreign := e.Tract != tractName
		class := fmt.Sprintf("lane%d", col%8)
		if foreign {
			class = "foreign"
		}
		g.Nodes = append(g.Nodes, graphNode{Row: r, Lane: col, X: x(col), Y: y(r), Foreign: foreign, Class: class})
		for j, p := range e.Parents {
			at := col
			if j > 0 {
				at = freeLane(&lanes)
			}
			lanes[at] = &lane{awaits: p, fromRow: r, fromLane: col, fromTract: e.Tract}
		}
		for i, l := range lanes {
			if l != nil && i > maxLane {
				maxLane = i
			}
		}
		maxLane = max(maxLane, col)
	}
	// Lines still open lead to commits older than the window.
	bottom := len(entries)
	for i, l := range lanes {
		if l == nil {
			continue
		}
		g.Edges = append(g.Edges, graphEdge{D: path(x(l.fromLane), y(l.fromRow), x(i), x(i), y(bottom)-rowHeight/2), Class: edgeClass(i, false) + " open"})
	}
	g.Width = x(maxLane) + laneWidth
	g.Height = y(bottom) - rowHeight/2
	return g
}

func freeLane(lanes *[]*lane) int {
	for i, l := range *lanes {
		if l == nil {
			return i
		}
	}
	*lanes = append(*lanes, nil)
	return len(*lanes) - 1
}

func edgeClass(lane int, cross bool) string {
	if cross {
		return "edge cross"
	}
	return fmt.Sprintf("edge lane%d", lane%8)
}

// path draws a line from a child at (x0, y0) that runs on the lane at lx and
// ends at a parent at (x1, y1): a diagonal onto the lane in the first row
// gap, straight down the lane, and a diagonal off it in the last.
func path(x0, y0, lx, x1, y1 int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "M%d %d", x0, y0)
	if lx != x0 {
		fmt.Fprintf(&b, " L%d %d", lx, y0+rowHeight/2)
	}
	if x1 != lx {
		fmt.Fprintf(&b, " L%d %d L%d %d", lx, y1-rowHeight/2, x1, y1)
	} else {
		fmt.Fprintf(&b, " L%d %d", x1, y1)
	}
	return b.String()
}
