"""Lesson and deck files: read, checked key by key (lesson_format), their models,
promises, figures and reference lines (lesson_models, lesson_promises, lesson_figures,
lesson_references, lesson_metrics), a lesson named with its slide (lesson_at), decks of
slides across lessons (decks), and the limits on a narration's Markdown
(narration_limits). What a lesson does in the window is plain.controllers'."""
