"""Before Qt starts: which platform it will use, the system libraries that platform needs
(Qt aborts the process, exit 134, where one is missing), and the line that says so.
Plain functions of the environment and a library loader, so tests can fake both.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping

# What PySide6's Qt loads on Linux besides libc and libstdc++ (the NEEDED entries of
# libQt6Core/Gui/DBus for every platform, of libqxcb.so and libQt6XcbQpa.so for an X
# window), each with the Debian/Ubuntu package that holds it. zlib and zstd are left
# out: Debian installs them everywhere.
QT_LIBRARIES = (
    ("libGL.so.1", "libgl1"), ("libEGL.so.1", "libegl1"),
    ("libfontconfig.so.1", "libfontconfig1"), ("libfreetype.so.6", "libfreetype6"),
    ("libglib-2.0.so.0", "libglib2.0-0"), ("libgthread-2.0.so.0", "libglib2.0-0"),
    ("libdbus-1.so.3", "libdbus-1-3"), ("libxkbcommon.so.0", "libxkbcommon0"),
    ("libX11.so.6", "libx11-6"),
)
XCB_LIBRARIES = (
    ("libxcb.so.1", "libxcb1"), ("libX11-xcb.so.1", "libx11-xcb1"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"), ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"), ("libxcb-image.so.0", "libxcb-image0"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"), ("libxcb-randr.so.0", "libxcb-randr0"),
    ("libxcb-render.so.0", "libxcb-render0"), ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ("libxcb-shape.so.0", "libxcb-shape0"), ("libxcb-shm.so.0", "libxcb-shm0"),
    ("libxcb-sync.so.1", "libxcb-sync1"), ("libxcb-util.so.1", "libxcb-util1"),
    ("libxcb-xfixes.so.0", "libxcb-xfixes0"), ("libxcb-xkb.so.1", "libxcb-xkb1"),
)
INVISIBLE = ("offscreen", "minimal")   # platforms that draw no window anyone can see
OFFSCREEN_HINT = "QT_QPA_PLATFORM=offscreen gradviz --screenshot shot.png"


def can_load(soname: str) -> bool:
    """Whether the dynamic loader finds soname, as Qt's own loading would."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def qt_platform(environ: Mapping[str, str]) -> str:
    """The platform plugin Qt will try first: QT_QPA_PLATFORM's first name, else wayland
    in a Wayland session (Qt 6 prefers it there), else xcb."""
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if environ.get("XDG_SESSION_TYPE") == "wayland" or environ.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "xcb"


def missing_libraries(platform: str, load: Callable[[str], bool] = can_load
                      ) -> list[tuple[str, str]]:
    """(library, Debian package) for each library the platform needs that load() cannot
    find."""
    needed = QT_LIBRARIES + (XCB_LIBRARIES if platform == "xcb" else ())
    return [(soname, package) for soname, package in needed if not load(soname)]


def missing_message(missing: list[tuple[str, str]], platform: str) -> str:
    """One line: what is missing, the apt-get line that installs it, the way around."""
    packages = " ".join(dict.fromkeys(package for _, package in missing))
    libraries = ", ".join(soname for soname, _ in missing)
    way_around = f"; or, without a window, {OFFSCREEN_HINT}" if platform == "xcb" else ""
    named = platform if platform.isidentifier() else repr(platform)   # it is the user's text
    return (f"gradviz: Qt's {named} platform needs libraries this system lacks "
            f"({libraries}); on Debian/Ubuntu: sudo apt-get install {packages}{way_around}")


def display_problem(environ: Mapping[str, str], sys_platform: str,
                    load: Callable[[str], bool] = can_load) -> str | None:
    """The one line that stops the app before Qt would abort, or None to go on."""
    if sys_platform != "linux":
        return None
    platform = qt_platform(environ)
    if platform == "xcb" and not environ.get("DISPLAY"):
        return ("gradviz: no display found (DISPLAY is not set); run it on a desktop, or "
                f"without a window: {OFFSCREEN_HINT}")
    missing = missing_libraries(platform, load)
    return missing_message(missing, platform) if missing else None


def invisible_notice(environ: Mapping[str, str], screenshot: str | None) -> str | None:
    """The line that says an offscreen window will never be seen (else the app seems to
    hang), or None where the window shows or --screenshot ends the run."""
    platform = environ.get("QT_QPA_PLATFORM", "").split(":")[0].strip()
    if platform not in INVISIBLE or screenshot is not None:
        return None
    return (f"gradviz: QT_QPA_PLATFORM={platform}: the window is drawn offscreen and never "
            "shown; Ctrl+C quits, or add --screenshot shot.png to save a picture and exit")
