"""A launcher in the style of a Python wrapper script: runs its arguments as
a child process (inheriting stdin, stdout and stderr) and exits with the
child's status. Run by the client, it makes the MCP server the port's
grandchild (test/mcp_launcher_tests.erl)."""
import subprocess
import sys

if __name__ == "__main__":
    sys.exit(subprocess.call(sys.argv[1:]))
