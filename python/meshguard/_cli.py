"""The console commands: each starts the program of the same name that the
wheel ships under meshguard/bin (a binary, or a Python script run with this
interpreter), with the same arguments."""

import os
import sys

from meshguard import package_dir


def _run(name, python=False):
    path = os.path.join(package_dir, "bin", name)
    argv = ([sys.executable, path] if python else [path]) + sys.argv[1:]
    os.execv(argv[0], argv)


def tidy():
    _run("meshguard-tidy")


def clangd():
    _run("meshguard-clangd")


def run():
    _run("meshguard-run", python=True)


def sarif():
    _run("meshguard-sarif", python=True)


def launch():
    _run("meshguard-launch", python=True)
