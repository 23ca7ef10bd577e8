"""The autograd graph as plain data (graph_data) and what is decided about it without Qt
or torch: the module view and its folded runs of blocks (module_graph, module_runs), what
a slide's focus frames (graph_focus), where the view goes and whether its key folds away
(graph_room, graph_key_fold), how slowly a backward sweep is drawn (sweep_pace), and the
graph walk's results kept per structure (walk_cache)."""
