"""README's "Use from Python" example runs as written."""

import pathlib
import re


def test_readme_python_example_runs(capsys):
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Use from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) == 5
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.split()
    assert int(printed[0]) > 0  # pairs were found, and the query printed its indices
