"""The plain PyTorch program a config amounts to, as source text: the loop the Code panel
shows (loop_code), the runnable script of the built-in model (script), its
DistributedDataParallel ranks (ddp_script), and a model file's run (model_script)."""
