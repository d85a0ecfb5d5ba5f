"""The one table of option shapes: for each command, which options take values and which
words name the files it reads and writes (outputs of compilers, downloaders, archivers,
formatters and the file commands).

Owns: `SHAPES`. Must not touch: reading arguments (options.py), resolving paths
(scan_paths.py) or the write rules named here (scan_writes.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from shellpilot.scanner.options import Shape


def _s(names: str) -> frozenset[str]:
    """A set of option names from a space-separated string."""
    return frozenset(names.split())


_ALL = Shape()
_REMOVE = Shape(writes="operands")
_GREP = Shape("skip1", values="ABCmdDe", paths="f", script="ef", long_paths=_s("--file --exclude-from"))
_HEADTAIL = Shape(values="nc", long_values=_s("--lines --bytes"))
_COPY_LONG = _s("--target-directory")
_COPY_VALUES = _s("--suffix --backup")


def _copying(rule: str) -> Shape:
    """cp, mv, ln: `-t DIR` / `--target-directory`, `-T` / `--no-target-directory`."""
    return Shape(
        paths="t",
        values="S",
        long_paths=_COPY_LONG,
        long_values=_COPY_VALUES,
        long_flags=_s("--no-target-directory"),
        writes=rule,
    )


_OWNER = Shape("skip1", long_paths=_s("--reference"), long_values=_s("--from"), writes="owner")
_SCRIPT = Shape("first", values="WXQ", stop="cme")
_COMPRESS_FLAGS = _s("--stdout --test --list")
_COMPRESS = Shape(
    values="S", long_values=_s("--suffix --threads --format"), long_flags=_COMPRESS_FLAGS, writes="compress"
)
_CC = Shape(
    outputs="o",
    values="IDULlxuzBb",
    dash_words=True,
    long_outputs=_s("-MF -MT -MQ"),
    long_values=_s("-include -isystem -iquote -imacros -idirafter -Xlinker -Xassembler -Xpreprocessor"),
    writes="cc",
)
_GO_BUILD = Shape("none", outputs="o", dash_words=True, long_values=_s("-ldflags -gcflags -tags -p -mod"))
_PIP = Shape(
    "none",
    paths="rc",
    long_paths=_s("--requirement --constraint"),
    subcommands={
        "download": Shape(
            "none", output_dirs="d", paths="rc", long_output_dirs=_s("--dest"), long_paths=_s("--requirement")
        ),
        "install": Shape(
            "none",
            output_dirs="t",
            paths="rce",
            long_output_dirs=_s("--target --prefix --root --src"),
            long_paths=_s("--requirement --constraint --editable"),
        ),
        "wheel": Shape("none", output_dirs="w", paths="rc", long_output_dirs=_s("--wheel-dir")),
    },
)
_VENV = Shape(values="p", long_values=_s("--prompt --python"), writes="directories")
_FORMAT = Shape(writes="operands")  # formatters that rewrite their operands in place
_CHECKS = _s("--check --diff")  # a formatter that only checks
_FIXES = _s("--fix --fix-only")  # a linter that rewrites
_IN_PLACE = _s("--in-place")
_CURL = Shape(
    "none",
    values="XHdAuxeEmwYyzrCFUQ",
    paths="TKb",
    outputs="oDc",
    long_paths=_s("--upload-file --config --cookie --data-binary --cacert --cert --key"),
    long_outputs=_s(
        "--output --dump-header --cookie-jar --trace --trace-ascii --stderr --libcurl --etag-save "
        "--hsts --alt-svc"
    ),
    long_output_dirs=_s("--output-dir"),
    long_values=_s(
        "--data --header --request --user-agent --user --proxy --max-time --url --write-out --form"
    ),
    long_flags=_s("--remote-name --remote-name-all"),
    writes="curl",
)
_WGET = Shape(
    "none",
    values="tTUewlQ",
    paths="i",
    outputs="Ooa",
    output_dirs="P",
    long_paths=_s("--input-file --load-cookies --ca-certificate"),
    long_outputs=_s("--output-document --output-file --append-output --save-cookies"),
    long_output_dirs=_s("--directory-prefix"),
    long_values=_s("--tries --timeout --user-agent --header --user --password --level --quota"),
    long_flags=_s("--spider"),
    writes="wget",
)
_OPENSSL = Shape(
    "none",
    dash_words=True,
    long_outputs=_s("-out -keyout -signature"),
    long_paths=_s("-in -key -config -CAfile -CA -CAkey -signkey -inkey -passin -sigfile -extfile -certfile"),
    long_values=_s("-days -subj -newkey -name -pass -passout -aes256 -md -set_serial -extensions -reqexts"),
)
_DOCKER_RUN = Shape(
    "none",
    values="eawuhlpmcEv",
    long_paths=_s("--env-file --cidfile --label-file"),
    long_values=_s(
        "--volume --mount --env --workdir --user --hostname --label --publish --name --network "
        "--entrypoint --memory --cpus --platform --restart --add-host --device --ulimit "
        "--log-driver --log-opt --cap-add --cap-drop"
    ),
    writes="mounts",
)
_DOCKER = Shape(
    "none",
    long_paths=_s("--config"),
    long_values=_s("--context --host --log-level"),
    values="cHl",
    subcommands={
        "run": _DOCKER_RUN,
        "create": _DOCKER_RUN,
        "container": Shape("none", subcommands={"run": _DOCKER_RUN, "create": _DOCKER_RUN}),
        "build": Shape(
            "first",
            values="tm",
            paths="f",
            long_paths=_s("--file --secret --iidfile"),
            long_values=_s("--tag --build-arg --target --platform --label --network --progress"),
        ),
        "save": Shape("none", outputs="o", long_outputs=_s("--output")),
        "export": Shape("none", outputs="o", long_outputs=_s("--output")),
        "load": Shape("none", paths="i", long_paths=_s("--input")),
        "cp": Shape("all", writes="docker-cp"),
    },
)
_GIT_PATHS = Shape(  # paths and revisions alike are read as paths (`HEAD~1` is inside)
    values="nUSGLO",
    long_outputs=_s("--output"),
    long_values=_s(
        "--format --pretty --date --since --until --author --committer --grep --max-count --skip "
        "--diff-filter --src-prefix --dst-prefix --encoding"
    ),
)
_GIT = Shape(
    "none",
    values="c",
    paths="C",
    long_paths=_s("--git-dir --work-tree"),
    long_values=_s("--namespace --config-env --exec-path"),
    subcommands={
        "init": Shape(
            "none", values="b", long_values=_s("--initial-branch --object-format --shared"), writes="git-init"
        ),
        "clone": Shape(
            "none",
            values="obcju",
            long_values=_s("--origin --branch --config --jobs --depth --upload-pack --reference --filter"),
            long_paths=_s("--template --separate-git-dir"),
            writes="git-clone",
        ),
        "archive": Shape(
            "none", outputs="o", long_outputs=_s("--output"), long_values=_s("--format --prefix")
        ),
        "format-patch": Shape(
            "none", output_dirs="o", long_output_dirs=_s("--output-directory"), long_outputs=_s("--output")
        ),
        "diff": _GIT_PATHS,
        "log": _GIT_PATHS,
        "show": _GIT_PATHS,
        "status": _GIT_PATHS,
        "add": _GIT_PATHS,
        "restore": _GIT_PATHS,
        "checkout": _GIT_PATHS,
        "ls-files": Shape(paths="X", long_paths=_s("--exclude-from")),
        "blame": _GIT_PATHS,
        "grep": Shape("skip1", values="eABCm", script="e", long_values=_s("--max-depth")),
        "worktree": Shape(
            "none", subcommands={"add": Shape(values="b", long_values=_s("--reason"), writes="directories")}
        ),
        "bundle": Shape("none", subcommands={"create": Shape(writes="first")}),
    },
)

SHAPES: Mapping[str, Shape] = {
    # files removed, made or changed in place
    "rm": _REMOVE,
    "rmdir": _REMOVE,
    "unlink": _REMOVE,
    "shred": Shape(values="ns", long_values=_s("--iterations --size --random-source"), writes="operands"),
    "cp": _copying("copy"),
    "mv": _copying("move"),
    "ln": _copying("link"),
    "install": Shape(
        paths="t",
        values="mogS",
        long_paths=_COPY_LONG,
        long_values=_s("--mode --owner --group --strip-program --suffix"),
        long_flags=_s("--no-target-directory --directory"),
        writes="install",
    ),
    "mkdir": Shape(values="m", long_values=_s("--mode --context"), writes="operands"),
    "touch": Shape(
        values="dt",
        paths="r",
        long_paths=_s("--reference"),
        long_values=_s("--date --time"),
        writes="operands",
    ),
    "truncate": Shape(
        values="s", paths="r", long_paths=_s("--reference"), long_values=_s("--size"), writes="operands"
    ),
    "chmod": Shape("skip1", long_paths=_s("--reference"), flags="cfvR", modes=True, writes="owner"),
    "chown": _OWNER,
    "chgrp": _OWNER,
    "tee": Shape(writes="operands"),
    "link": Shape(writes="second"),  # `link FILE NEW` makes NEW
    "dos2unix": Shape(values="c", long_values=_s("--convmode"), writes="operands"),  # in place, or -n IN OUT
    "unix2dos": Shape(values="c", long_values=_s("--convmode"), writes="operands"),
    "yq": Shape(
        "skip1",
        values="f",
        long_values=_s("--output-format --input-format --arg --indent"),
        long_flags=_s("--in-place --inplace"),
        writes="in-place",
    ),
    "xmllint": Shape(long_outputs=_s("--output"), long_values=_s("--xpath --encode --maxmem --path")),
    "gpg": Shape(
        outputs="o",
        values="rRuU",
        long_outputs=_s("--output"),
        long_values=_s("--recipient --local-user --homedir --default-key --trust-model"),
    ),
    "mkfifo": Shape(values="mZ", long_values=_s("--mode --context"), writes="operands"),
    "mknod": Shape(values="mZ", long_values=_s("--mode --context"), writes="first"),
    "dd": Shape(writes="dd"),
    "mktemp": Shape(
        "none", values="p", long_values=_s("--suffix --tmpdir"), long_flags=_s("--dry-run"), writes="mktemp"
    ),
    "sed": Shape(
        "skip1",
        values="el",
        attached="i",
        paths="f",
        script="ef",
        long_values=_s("--expression --line-length"),
        long_paths=_s("--file"),
        long_flags=_s("--in-place"),
        writes="sed",
    ),
    "perl": Shape("first", values="IMmeEi", attached="i", script="eE", writes="perl"),
    "sort": Shape(
        values="ktSTz", outputs="o", long_outputs=_s("--output"), long_values=_s("--key --buffer-size")
    ),
    "uniq": Shape(values="fsw", long_values=_s("--skip-fields --skip-chars --check-chars"), writes="second"),
    "split": Shape(
        values="abCln", long_values=_s("--suffix-length --bytes --lines --number"), writes="split"
    ),
    "csplit": Shape(values="bnf", long_values=_s("--suffix-format --digits --prefix"), writes="csplit"),
    "iconv": Shape(
        values="ft", outputs="o", long_outputs=_s("--output"), long_values=_s("--from-code --to-code")
    ),
    "xxd": Shape(values="cglnos", writes="second"),
    "patch": Shape(
        values="pFDzV",
        paths="idBr",
        outputs="o",
        long_paths=_s("--input --directory"),
        long_outputs=_s("--output"),
        long_flags=_s("--dry-run"),
        writes="patch",
    ),
    # archives
    "tar": Shape(
        values="bHgNKLV",
        paths="fCTX",
        long_paths=_s("--file --directory --files-from --exclude-from"),
        long_flags=_s("--create --append --update --concatenate --extract --get"),
        old_style=True,
        writes="tar",
    ),
    "zip": Shape(values="nPb", writes="first"),
    "unzip": Shape(values="P", output_dirs="d", writes="extract"),
    "7z": Shape(values="mpt", attached="o", writes="7z"),
    "7za": Shape(values="mpt", attached="o", writes="7z"),
    "gzip": _COMPRESS,
    "gunzip": _COMPRESS,
    "bzip2": _COMPRESS,
    "bunzip2": _COMPRESS,
    "xz": _COMPRESS,
    "unxz": _COMPRESS,
    "zstd": Shape(outputs="o", values="T", long_flags=_COMPRESS_FLAGS, writes="compress"),
    # files read (`cd` too when a wrapper runs a program of that name: `env cd x`)
    "cd": _ALL,
    "pushd": _ALL,
    "cat": _ALL,
    "tac": _ALL,
    "nl": Shape(values="bdfhilnsvw"),
    "head": _HEADTAIL,
    "tail": _HEADTAIL,
    "less": _ALL,
    "more": _ALL,
    "ls": Shape(values="ITw", long_values=_s("--hide --ignore --format --sort")),
    "tree": Shape(values="LIPH", outputs="o"),
    "du": Shape(values="dBt", paths="X", long_paths=_s("--files0-from --exclude-from")),
    "stat": Shape(values="c", long_values=_s("--format --printf")),
    "file": Shape(values="mF"),
    "wc": Shape(long_paths=_s("--files0-from")),
    "date": Shape(
        "none", values="ds", paths="fr", long_values=_s("--date --set"), long_paths=_s("--file --reference")
    ),
    "realpath": _ALL,
    "readlink": _ALL,
    "md5sum": _ALL,
    "sha1sum": _ALL,
    "sha256sum": _ALL,
    "sha512sum": _ALL,
    "base64": Shape(values="w"),
    "hexdump": Shape(values="enos"),
    "od": Shape(values="ANjSstw"),
    "strings": Shape(values="nteT"),
    "diff": Shape(values="UCFIxLD", paths="X", long_paths=_s("--exclude-from --from-file --to-file")),
    "cmp": Shape(values="iIn"),
    "comm": _ALL,
    "paste": Shape(values="d"),
    # `script [-c CMD] [FILE]`: it writes FILE (or ./typescript)
    "script": Shape(
        values="ImBTtoEc",
        long_values=_s("--command --log-in --log-out --log-timing --log-io --echo"),
        writes="script",
    ),
    # more readers of their operands (coreutils, util-linux, e2fsprogs, compressors' cats)
    "rev": _ALL,
    "fold": Shape(values="w"),
    "fmt": Shape(values="pgw"),
    "pr": Shape(values="cDeFhiJlNnoSsWw"),
    "expand": Shape(values="t"),
    "unexpand": Shape(values="t"),
    "column": Shape(values="cEHilNnOopRrsTW"),
    "cksum": Shape(values="al"),
    "sum": _ALL,
    "b2sum": Shape(values="l"),
    "sha224sum": _ALL,
    "sha384sum": _ALL,
    "base32": Shape(values="w"),
    "basenc": Shape(values="w"),
    "shuf": Shape(
        values="nie",
        outputs="o",
        long_outputs=_s("--output"),
        long_values=_s("--head-count --input-range --random-source"),
    ),
    "tsort": _ALL,
    "join": Shape(values="aeotjv12"),
    "namei": _ALL,
    "lsattr": _ALL,
    "getfacl": _ALL,
    "zcat": _ALL,
    "bzcat": _ALL,
    "xzcat": _ALL,
    "zstdcat": _ALL,
    "lzcat": _ALL,
    "cut": Shape(values="bcdf"),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": Shape(
        "skip1",
        values="ABCmgtTjMdEer",
        paths="f",
        script="ef",
        long_values=_s("--glob --type --type-not --max-depth --regexp --replace"),
        long_paths=_s("--file --ignore-file"),
    ),
    "ag": Shape("skip1", values="ABCmG"),
    "awk": Shape("skip1", values="vF", paths="f", script="f"),
    "gawk": Shape("skip1", values="vF", paths="f", script="f"),
    "jq": Shape("skip1", long_paths=_s("--from-file --rawfile --slurpfile")),
    "rsync": Shape(values="eB", long_paths=_s("--exclude-from --include-from --files-from"), writes="last"),
    "scp": Shape(values="cFiJloPS", writes="last"),
    # interpreters: the script file is a path
    "source": Shape("first"),
    ".": Shape("first"),
    "python": _SCRIPT,
    "python3": _SCRIPT,
    "python2": _SCRIPT,
    "node": Shape("first", values="r", stop="ep", long_values=_s("--require --import")),
    "ruby": Shape("first", values="rIC", stop="e"),
    "php": Shape("first", values="cd", stop="r"),
    "sqlite3": Shape(
        "first", dash_words=True, long_values=_s("-cmd -separator -nullvalue -newline"), writes="first"
    ),
    # editors and openers
    "vi": _ALL,
    "vim": _ALL,
    "nvim": _ALL,
    "nano": _ALL,
    "emacs": _ALL,
    "code": _ALL,
    "open": _ALL,
    "xdg-open": _ALL,
    # compilers, builders and their outputs
    "gcc": _CC,
    "g++": _CC,
    "cc": _CC,
    "c++": _CC,
    "clang": _CC,
    "clang++": _CC,
    "ld": Shape(outputs="o", values="lLT", dash_words=True),
    "as": Shape(outputs="o", dash_words=True),
    "rustc": Shape(
        outputs="o",
        values="LlC",
        long_output_dirs=_s("--out-dir"),
        long_values=_s("--edition --crate-type --crate-name --target"),
    ),
    "javac": Shape(
        output_dirs="ds",
        dash_words=True,
        long_values=_s("-cp -classpath -sourcepath --release -source -target"),
    ),
    "tsc": Shape(
        long_output_dirs=_s("--outDir --declarationDir"),
        long_outputs=_s("--outFile"),
        long_paths=_s("--project"),
        paths="p",
    ),
    "go": Shape(
        "none",
        subcommands={
            "build": _GO_BUILD,
            "test": Shape("none", outputs="o", dash_words=True, long_values=_s("-run -tags -timeout -count")),
            "fmt": Shape(writes="cwd"),
        },
    ),
    "make": Shape("none", values="jlWo", paths="Cf", long_paths=_s("--directory --file")),
    "npm": Shape(
        "none",
        long_paths=_s("--prefix"),
        subcommands={"pack": Shape("none", long_output_dirs=_s("--pack-destination"))},
    ),
    "pnpm": Shape("none", paths="C", long_paths=_s("--dir --prefix")),
    "yarn": Shape("none", long_paths=_s("--cwd")),
    "cargo": Shape(
        "none",
        long_paths=_s("--manifest-path"),
        long_output_dirs=_s("--target-dir --out-dir"),
        subcommands={"fmt": Shape("none", writes="cwd")},
    ),
    "uv": Shape(
        "none",
        long_paths=_s("--directory --project"),
        subcommands={
            "venv": Shape(values="p", long_values=_s("--python --prompt"), writes="uv-venv"),
            "pip": _PIP,
        },
    ),
    "pip": _PIP,
    "pip3": _PIP,
    "venv": _VENV,
    "virtualenv": _VENV,
    "curl": _CURL,
    "wget": _WGET,
    "git": _GIT,
    "ssh-keygen": Shape("none", values="bCtNnOIZaYmVzEGTPWMK", outputs="f", writes="ssh-keygen"),
    "openssl": _OPENSSL,
    "docker": _DOCKER,
    "podman": _DOCKER,
    "helm": Shape(
        "none", subcommands={"package": Shape(output_dirs="d", long_output_dirs=_s("--destination"))}
    ),
    "pandoc": Shape(
        outputs="o", long_outputs=_s("--output"), values="ftM", long_values=_s("--from --to --metadata")
    ),
    # formatters that rewrite the files they are given
    "black": Shape(
        values="lt",
        stop="c",
        long_values=_s("--line-length --target-version --include --exclude --config"),
        long_flags=_CHECKS,
        writes="formatter",
    ),
    "isort": Shape(
        long_values=_s("--settings-path --profile --line-length"), long_flags=_CHECKS, writes="formatter"
    ),
    "ruff": Shape(
        "none",
        subcommands={
            "format": Shape(
                long_values=_s("--config --line-length --target-version --exclude"),
                long_flags=_CHECKS,
                writes="formatter",
            ),
            "check": Shape(
                long_values=_s("--config --select --ignore --extend-select --exclude --target-version"),
                long_flags=_FIXES,
                writes="fix",
            ),
        },
    ),
    "prettier": Shape(
        long_values=_s("--config --ignore-path --parser --plugin"),
        long_flags=_s("--write"),
        writes="write-flag",
    ),
    "eslint": Shape(
        paths="c",
        outputs="o",
        long_paths=_s("--config"),
        long_values=_s("--ext --format --rule --plugin"),
        long_outputs=_s("--output-file"),
        long_flags=_FIXES,
        writes="fix",
    ),
    "gofmt": Shape(writes="write-flag"),
    "goimports": Shape(writes="write-flag"),
    "shfmt": Shape(values="i", writes="write-flag"),
    "rustfmt": Shape(
        long_values=_s("--edition --config-path --emit"), long_flags=_CHECKS, writes="formatter"
    ),
    "clang-format": Shape(
        long_values=_s("--style --assume-filename"), long_flags=_IN_PLACE, writes="in-place"
    ),
    "autopep8": Shape(long_flags=_IN_PLACE, writes="in-place"),
    "yapf": Shape(long_flags=_IN_PLACE, writes="in-place"),
}
"""Command name -> its option shape (see options.Shape); `find` reads its own way."""
