# SPDX-License-Identifier: BSD-3-Clause
"""Builds the xio package (metadata in pyproject.toml) with a copy of
libxio: the shared library make built (in XIO_BUILD, default the
checkout's build/), named by its soname (libxio.so.N, what build/libxio.so
links to), beside xio/_lib.py, which loads it from there. The version is the Makefile's XIO_VERSION."""
import glob
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))


def version():
    with open(os.path.join(TOP, "Makefile")) as f:
        return re.search(r"^XIO_VERSION\s*:=\s*(\S+)", f.read(), re.M).group(1)


def libxio():
    """(the library's file, the name to copy it as): build/libxio.so links
    to its soname, libxio.so.N."""
    build = os.environ.get("XIO_BUILD", os.path.join(TOP, "build"))
    link = os.path.join(build, "libxio.so")
    if not os.path.islink(link) or not os.path.exists(link):
        raise SystemExit("xio: no %s: run make (or make build/libxio.so) in %s first, or set "
                         "XIO_BUILD to the folder that holds libxio.so" % (link, TOP))
    return os.path.realpath(link), os.path.basename(os.readlink(link))


class BuildPyWithLib(build_py):
    def run(self):
        super().run()
        lib, name = libxio()
        dest = os.path.join(self.build_lib, "xio")
        for old in glob.glob(os.path.join(dest, "libxio.so.*")):
            os.remove(old)
        shutil.copy2(lib, os.path.join(dest, name))


class BinaryDistribution(Distribution):
    """A wheel for this platform: it carries a compiled library."""

    def has_ext_modules(self):
        return True


setup(version=version(), packages=["xio"], cmdclass={"build_py": BuildPyWithLib}, distclass=BinaryDistribution)
