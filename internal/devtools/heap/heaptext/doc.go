// Package heaptext is the text of chrome-devtools-mcp 1.11's memory
// tools: the replies to get_heapsnapshot_summary and the other analysis
// tools, written from the answers of package heap, and the sentences their
// failures say. CSV tables come under "## Heap Snapshot Data", sizes in
// kilobytes as DevTools prints them, names cut at maxNameLength (100 by
// default), long lists paged as upstream pages them.
//
//	aggs, err := s.Aggregates(ctx, "", nil)
//	if err != nil {
//		return heaptext.QueryError(err)
//	}
//	lines := heaptext.Details(aggs, pageIdx, pageSize, heaptext.MaxNameLength(maxName))
//
// Every function here is pure but [Summary], which asks the snapshot one
// question under the caller's context. The package starts no goroutines.
package heaptext
