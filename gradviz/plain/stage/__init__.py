"""Where a lesson slide's narration and panels go on the stage: one pure function of the
room, the text size and the slide (stage_layout), the candidate arrangements it weighs
(stage_rects, stage_arrange), each panel's least size (stage_sizes), and Compare's verdict
placed beside the slide (stage_aside)."""
