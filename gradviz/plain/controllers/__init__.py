"""What drives the window's model, without the window: a lesson or a deck on screen
(lesson_controller, with the window as it was before it, the next slide prepared ahead and
a slide's preparing: lesson_before, slide_ahead, slide_preparing), Compare's B
(compare_controller), the views both drive, as protocols (controller_views), and a
recorded run's window's choices (viewer_controller)."""
