"""A training session's config as plain data: its fields and their checks (config), its
TOML form read and written (config_toml), the presets and the example model files that
ship with gradviz, found by name (presets, model_names), the keys only the built-in model
has (model_keys), which keys build the model (same_model), and the aggregating strategies'
names (jd_names)."""
