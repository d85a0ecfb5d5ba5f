"""Programs that run commands written inside their arguments make the scan unknown.

awk's system() and pipes, sed's e command and s///e flag, ssh's ProxyCommand, vim's
-c '!cmd', tar's --use-compress-program (or any abbreviation getopt accepts) and rsync -e
each start a process the scanner cannot read; the same programs used plainly stay known.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan

RUNS = [
    "awk 'BEGIN{system(\"rm victim\")}'",
    'awk \'BEGIN{print "x" | "rm victim"}\'',
    "gawk -e 'BEGIN{\"rm victim\" | getline x}'",
    "awk -f prog.awk notes.txt",
    "sed 's/.*/rm victim/e' notes.txt",
    "sed -n '1e rm victim' notes.txt",
    "sed -ne '1e rm victim' notes.txt",
    "sed --expression='1e rm victim' notes.txt",
    "sed -nf script.sed notes.txt",
    "ssh -o ProxyCommand='rm victim' host true",
    "ssh -oLocalCommand='rm victim' -o PermitLocalCommand=yes host",
    "ssh -F ./ssh_config host",
    "scp -S ./fake-ssh a host:b",
    "rsync -e 'rm victim' a host:b",
    "vim -es -c '!rm victim' -c q",
    "vi +'!rm victim' notes.txt",
    "tar -cf t.tar --use-compress-program='rm victim' notes.txt",
    "tar -cf t.tar --use='rm victim' notes.txt",
    "tar -cI 'rm victim' -f t.tar notes.txt",
    "tar -xf t.tar --to-command='rm victim'",
    "tar -cf t.tar --checkpoint=1 --checkpoint-action=exec='rm victim' notes.txt",
    "split --filter='rm victim' notes.txt",
    "split --filt='rm victim' notes.txt",
    "sort --compress-program=./zip -S 1 notes.txt",
    "wget --use-askpass='rm victim' http://example.invalid/",
    "gdb -batch -ex 'shell rm victim'",
    "zip -T -TT 'rm victim' a.zip notes.txt",
    "man -P 'rm victim' ls",
    "mapfile -C 'rm victim #' -c 1 < notes.txt",
    "awk '{print > \"out.txt\"}' notes.txt",
    'awk \'BEGIN{printf "x" >> "/tmp/o"}\'',
    "ed -s notes.txt",
    "readarray -tC 'rm victim #' -c 1 lines < notes.txt",
    "wget -e 'use_askpass=./rm-it' http://example.invalid/",
    "tmux new -d 'rm victim'",
    "tmux send-keys 'rm victim' Enter",
]

PLAIN = [
    "awk '{print $1}' notes.txt",
    "awk -F: '$1 || $2 {print}' notes.txt",
    "sed -n 's/a/b/p' notes.txt",
    "sed -i.bak 's/a/b/' notes.txt",
    "ssh host ls",
    "rsync -av src/ dst/",
    "tar -czf t.tgz notes.txt",
    "tar xzf t.tgz",
    "split -l 10 notes.txt part-",
    "sort -o sorted.txt notes.txt",
    "man ls",
    "mapfile -t lines < notes.txt",
    "awk '$1 > 5' notes.txt",
    "awk '{ if ($2 > 3) n++ } END { print n }' notes.txt",
    "wget -q http://example.invalid/",
    "tmux ls",
    "tmux attach -t 0",
]


@pytest.mark.parametrize("command", RUNS)
def test_a_command_inside_the_arguments_makes_the_scan_unknown(project: Path, command: str) -> None:
    result = scan(command, cwd=project, project_dir=project)
    assert result.unknown, command
    assert "*" in result.writes  # an unknown scan's writes cover every place


@pytest.mark.parametrize("command", PLAIN)
def test_the_same_programs_used_plainly_stay_known(project: Path, command: str) -> None:
    assert not scan(command, cwd=project, project_dir=project).unknown, command


@pytest.mark.parametrize(
    "command",
    [
        "awk 'BEGIN{system(\"touch victim\")}'",
        "sed -n '1e touch victim' notes.txt",
        "tar -cf t.tar --use='touch victim' notes.txt",
        "split -l 1 --filter='touch victim' notes.txt",
        "mapfile -C 'touch victim #' -c 1 lines < notes.txt",
    ],
)
def test_bash_really_runs_them(project: Path, command: str) -> None:
    """The forms above are real: bash (with GNU awk/sed/tar) runs the hidden command."""
    if not all(shutil.which(p) for p in ("awk", "sed", "tar")):
        pytest.skip("awk, sed or tar is not installed")
    (project / "notes.txt").write_text("one\n")
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30)
    assert (project / "victim").exists()
    assert scan(command, cwd=project, project_dir=project).unknown
