"""Errors and divergence as plain events, each with a plain-language explanation.

PyTorch's own message is kept word for word; the explanation says why it happened in
this session and what to change.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

# (words in PyTorch's message, title, why, what to do): first match wins.
_EXPLANATIONS = (
    ("backward through the graph a second time",
     "Backward through a freed graph",
     "A backward call frees the saved tensors of the graph it went through unless it is "
     "told retain_graph=True. A later backward call that runs through the same part of "
     "the graph (here: the shared trunk, or an earlier head) finds those tensors gone.",
     "Sum the losses and call backward once (strategy sum), or set retain graph to auto "
     "so every backward call except the last keeps the graph."),
    ("detached in-place",
     "A saved tensor was detached in place",
     "z.detach_() cut the trunk output out of the graph in place, but a head that ran "
     "before it had already saved z for its own backward. Detaching in place changes "
     "the tensor every earlier user shares, so their backward can no longer use it.",
     "Use detach mode detach (z.detach() gives this head its own tensor, cut from the "
     "graph, without touching z itself). Detaching in place before the first head also "
     "avoids the error, but only by cutting every head off the trunk: the trunk then "
     "learns nothing."),
    ("modified by an inplace operation",
     "A saved tensor was changed in place",
     "A tensor that backward needs was changed in place after it was saved (for example "
     "a weight updated by optimizer.step() before a retained graph was used again).",
     "Finish every backward call before the optimizer step, or recompute the forward."),
    ("does not require grad and does not have a grad_fn",
     "Nothing to differentiate",
     "The tensor backward was called on has no grad_fn: no recorded graph links it to a "
     "weight that requires grad. PyTorch says the same for several causes: every path "
     "to the weights was detached, the forward ran under torch.no_grad() or "
     "torch.inference_mode(), or every weight it used is frozen (requires_grad False).",
     "Undo the detach, run the forward outside no_grad/inference_mode, or unfreeze a "
     "weight it uses; else leave this loss out of backward."),
    ("inference tensors cannot be saved for backward",
     "An inference tensor used in autograd",
     "A tensor made under torch.inference_mode() is an inference tensor: PyTorch never "
     "records it, and refuses to save it for a backward later, even outside the block.",
     "Use torch.no_grad() where the result is used again in training, or clone the "
     "tensor (t.clone() outside the block) before using it in autograd."),
    ("inplace update to inference tensor",
     "An inference tensor changed in place",
     "A tensor made under torch.inference_mode() cannot be changed in place outside it: "
     "PyTorch keeps no version counter for inference tensors, so it refuses the edit.",
     "Change a clone (t = t.clone()), or make the tensor under torch.no_grad()."),
    ("same device",
     "Tensors on different devices",
     "One operation received tensors that live on different devices (CPU and GPU).",
     "Move the model and the batch to one device: model.to(device), x.to(device)."),
    ("is not on the expected device",
     "Tensors on different devices",
     "One operation received tensors that live on different devices.",
     "Move the model and the batch to one device: model.to(device), x.to(device)."),
    ("out of memory",
     "Out of memory",
     "The device ran out of memory; graphs kept alive across steps (keep graphs, "
     "retain graph always) are a common cause.",
     "Turn keep graphs off, call .item() on losses you log, or lower the batch size."),
)

_DIVERGED = ("A loss became NaN or infinite: the updates grew until the numbers "
             "overflowed, usually because the learning rate is too high for this setup")
# per optimizer: SGD's step is lr times the gradient, so what multiplies the gradient
# multiplies the step; Adam divides by the gradient's running size, so it does not
_DIVERGENCE = {
    "sgd": (
        "Training diverged",
        _DIVERGED + ". SGD's step is lr times the gradient, so what makes the gradient "
        "larger makes the step larger too: over-counted losses from in-loop backward, "
        "unscaled accumulation, or zero_grad off (.grad sums every step so far).",
        "Lower the learning rate or undo the toggle that multiplies the gradient, then "
        "reset."),
    "adam": (
        "Training diverged",
        _DIVERGED + ". Adam divides each step by the gradient's running size, so a "
        "larger gradient (unscaled accumulation, zero_grad off) does not make a larger "
        "step: it stays of the order of the learning rate per weight.",
        "Lower the learning rate, then reset."),
}


PYTORCH = "PyTorch"
# the top-level packages whose errors are PyTorch's own (a C++ op raises from the frame
# that called it: gradviz's, for an op gradviz calls)
_PYTORCH_PACKAGES = {"torch", "gradviz"}
_NAMES = {"torchjd": "TorchJD"}


def who_raised(exc: BaseException) -> str:
    """The package whose code raised exc (its innermost frame's): PyTorch for torch
    itself and for a torch op gradviz called, else that package ("qpsolvers", "TorchJD"),
    or "gradviz" for an error of gradviz's own that is no torch error."""
    tb = exc.__traceback__
    if tb is None:
        return PYTORCH
    while tb.tb_next is not None:
        tb = tb.tb_next
    top = str(tb.tb_frame.f_globals.get("__name__", "")).split(".")[0]
    if top == "gradviz" and not isinstance(exc, RuntimeError):
        return "gradviz"
    if top in _PYTORCH_PACKAGES or not top:
        return PYTORCH
    return _NAMES.get(top, top)


@dataclass(frozen=True)
class Event:
    """Something that stopped a step: a PyTorch error or a divergence."""
    step: int
    phase: str          # "forward", "backward", "optimizer step", ...
    call: str           # which call inside the phase, e.g. "backward 2 of 3 (head1)"
    type: str           # the exception class, or "Divergence"
    message: str        # PyTorch's own message, first paragraph
    title: str
    explanation: str
    hint: str
    # who raised it: "PyTorch", "gradviz", a library ("qpsolvers"), "model file NAME"
    source: str = PYTORCH

    def to_dict(self) -> dict:
        return asdict(self)

    def one_line(self) -> str:
        """One line: its first (a model file's own frames follow on lines of their own),
        naming who raised it where that is not PyTorch."""
        first = (self.message.splitlines() or [""])[0]
        raised = self.type if self.source == PYTORCH else f"{self.source} raised {self.type}"
        return f"{raised} at step {self.step}, {self.call}: {first}"


def first_line(exc: BaseException, limit: int = 200) -> str:
    """The first line of exc's message (its type's name when it has none), at most limit
    characters: what one line of a status bar, a notice or stderr says about it."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:limit]


def _first_paragraph(text: str) -> str:
    return text.strip().split("\n\n")[0].replace("\n", " ").strip()


# The same PyTorch message has a different cause in some lessons: (situation, words in
# the message) -> (title, why, what to do). situation() says which lesson is on.
_IN_SITUATION = {
    ("edit-detached", "modified by an inplace operation"): (
        "A detached tensor was edited in place",
        "zk = z.detach() is cut from the graph but shares z's storage and version "
        "counter. zk.mul_(1.0) changed no value, yet bumped the counter: each node that "
        "saved z before the edit (each head's first layer, up to this one) sees a newer "
        "version than it saved, and refuses to run.",
        "Don't edit a detached tensor in place while the graph needs it: use "
        "zk = z.detach().clone() (its own storage), or zk = zk * 1.0 (out of place)."),
    ("rnn-never", "backward through the graph a second time"): (
        "The carried hidden state reaches a freed graph",
        "The recurrent trunk's hidden state is carried from one step to the next without "
        "a detach, so this step's backward runs on into the step before's graph, which "
        "that step's backward already freed.",
        "Truncate: detach the carried state at each step (--truncate every-step), i.e. "
        "h = h.detach() before the next forward. retain_graph=True is not the fix."),
    ("rnn-never-retained", "modified by an inplace operation"): (
        "retain_graph kept the graph, not the values it saved",
        "With retain_graph=True the step before's graph is still there, and this step's "
        "backward runs into it. But optimizer.step() has since changed the weights that "
        "graph saved, in place, so their saved versions no longer match.",
        "Truncate the carried state with h = h.detach() at each step (--truncate "
        "every-step) instead of retaining the graph."),
    ("no_grad", "does not require grad and does not have a grad_fn"): (
        "This loss was computed under torch.no_grad()",
        "The detached head's forward ran under torch.no_grad(): nothing was recorded, so "
        "its output and its loss have no grad_fn. A backward call that starts from that "
        "loss (alone, or in torch.autograd.backward's list, which checks each tensor) has "
        "nothing to walk. Under sum it raises nothing, which is worse: the other losses "
        "give the total its grad_fn, and this head's loss adds only its value, so the "
        "head's own weights get no gradient and it pushes nothing into the trunk.",
        "no_grad is for evaluation. To stop only the trunk's gradient from this head, "
        "give it zk = z.detach(): the head itself still learns."),
    ("inference_mode", "does not require grad and does not have a grad_fn"): (
        "This loss was computed under torch.inference_mode()",
        "The detached head's forward ran under torch.inference_mode(): as under no_grad "
        "nothing was recorded, so its loss has no grad_fn and a backward call that starts "
        "from it has nothing to walk (under sum the head silently learns nothing). Its outputs "
        "are also inference tensors: changing them in place or saving them for a "
        "backward later raises, even outside the block.",
        "inference_mode is for evaluation and serving. To stop only the trunk's "
        "gradient from this head, give it zk = z.detach(): the head itself still learns."),
    ("misplaced-meta", "is not on the expected device"): (
        "Tensors on different devices",
        "The misplaced head's parameters live on another device than the trunk's output "
        "z. This machine has only a CPU, so gradviz stands in PyTorch's meta device "
        "(tensors with a shape but no data) for the GPU. The error is simulated: the "
        "head's Linear has a meta bias, and addmm refuses that bias beside a CPU input; "
        "a plain torch.mm(cpu, meta) would return garbage without an error.",
        "Move the whole model and each batch to one device: model.to(device) and "
        "x.to(device), targets.to(device)."),
    ("misplaced", "same device"): (
        "Tensors on different devices",
        "The misplaced head's parameters live on another device than the trunk's output "
        "z, and one operation cannot mix devices.",
        "Move the whole model and each batch to one device: model.to(device) and "
        "x.to(device), targets.to(device)."),
}


def situation(config, other_device_type: str) -> str | None:
    """Which lesson a config demonstrates, where that changes an error's explanation.

    other_device_type: where the misplaced head goes ("meta" on a CPU-only machine, where
    the error is simulated); the engine knows it, this module has no torch."""
    if config.misplace_head is not None:
        return "misplaced-meta" if other_device_type == "meta" else "misplaced"
    if config.edit_detached is not None:
        return "edit-detached"
    if config.detach and config.detach_mode in ("no_grad", "inference_mode"):
        return config.detach_mode
    if config.model == "rnn" and config.truncation() == "never":
        return "rnn-never-retained" if config.retain_graph == "always" else "rnn-never"
    return None


GENERIC_TITLE = "PyTorch raised an error"   # an error no explanation here matches


def from_exception(exc: BaseException, step: int, phase: str, call: str,
                   situation: str | None = None, source: str | None = None) -> Event:
    """The event of exc; source: who raised it (None: who_raised(exc) tells)."""
    message = _first_paragraph(str(exc)) or type(exc).__name__
    lowered = str(exc).lower()
    source = who_raised(exc) if source is None else source
    for (where, words), (title, why, hint) in _IN_SITUATION.items():
        if where == situation and words.lower() in lowered:
            return Event(step, phase, call, type(exc).__name__, message, title, why, hint,
                         source)
    for words, title, why, hint in _EXPLANATIONS:
        if words.lower() in lowered:
            return Event(step, phase, call, type(exc).__name__, message, title, why, hint,
                         source)
    if source == PYTORCH:
        return Event(step, phase, call, type(exc).__name__, message, GENERIC_TITLE,
                     "PyTorch refused this combination of settings; its message above says "
                     "why.", "Change the last toggle back, or reset.", source)
    return Event(step, phase, call, type(exc).__name__, message, f"{source} raised an error",
                 f"{source} raised this error, not PyTorch; its message above says why.",
                 "Change the last toggle back, or reset.", source)


def divergence(step: int, phase: str, call: str, what: str, optimizer: str = "sgd") -> Event:
    """A divergence, explained for the optimizer in use ("sgd" or "adam")."""
    title, why, hint = _DIVERGENCE[optimizer]
    return Event(step, phase, call, "Divergence", what, title, why, hint)
