"""Build script: cythonizes every game core and the search loop in cext/.

The Python packages engine/, search/ and cext/ are installed under those names; Cython needs the
import name of a compiled module to match its directory so that cimports between the cores, the
shared base type and the search resolve at build and at run time.
"""
import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

HOT_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "nonecheck": False,
}


def extensions():
    """One extension per .pyx file in cext/, compiled with optimisation on.

    A developer may set CARAVAN_MODULES=khiva,ismcts to (re)build only those modules with
    `python setup.py build_ext --inplace`; installs always build everything.
    """
    only = {m for m in os.environ.get("CARAVAN_MODULES", "").split(",") if m}
    mods = []
    for path in sorted(glob.glob(os.path.join("cext", "*.pyx"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if only and name not in only:
            continue
        mods.append(
            Extension(
                f"cext.{name}",
                [path],
                extra_compile_args=["-O3"],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
        )
    return cythonize(mods, compiler_directives=HOT_DIRECTIVES, include_path=["."])


setup(
    packages=["engine", "engine.games", "search", "search.heuristics", "cext"],
    # engine/schemas is a link to docs/views: the published schemas ship with the package
    package_data={"cext": ["*.pxd", "*.pyx"], "engine": ["schemas/*.schema.json"]},
    ext_modules=extensions(),
    zip_safe=False,
)
