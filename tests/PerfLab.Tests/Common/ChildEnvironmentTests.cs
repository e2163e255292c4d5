using PerfLab.Common;

namespace PerfLab.Tests.Common;

// perflab runs with the runtime's single-processor tiering multiplier shortened (its launchers set it); the real
// processes it starts must get the runtime's default unless the caller names the variable itself. Checked on real
// children: the environment a launched process was started with (/proc/PID/environ), and what a shell child prints.
public sealed class ChildEnvironmentTests
{
    private const string Legacy = "COMPlus_TC_DelaySingleProcMultiplier";
    private const string Control = "PERFLAB_TEST_CHILD_ENV_CONTROL";

    [Fact]
    public async Task Launch_PerflabRunsWithTheMultiplier_ChildStartsWithoutIt()
    {
        using var scope = new OwnVariables();
        using var child = ProcessRunner.Launch(new ProcessSpec("/bin/sh", ["-c", "exec sleep 30"]));
        try
        {
            var environ = await StartedEnvironmentAsync(child.Id);

            Assert.Equal("1", Environment.GetEnvironmentVariable(ChildEnvironment.TieringMultiplier));
            Assert.Contains($"{Control}=inherited", environ); // what perflab has otherwise does reach the child
            Assert.DoesNotContain(environ, v => v.StartsWith(ChildEnvironment.TieringMultiplier + "=", StringComparison.Ordinal));
            Assert.DoesNotContain(environ, v => v.StartsWith(Legacy + "=", StringComparison.Ordinal));
        }
        finally
        {
            await ProcessTree.KillAsync(child);
        }
    }

    [Fact]
    public async Task RunAsync_VariantSetsTheMultiplier_ChildKeepsItsValue()
    {
        using var scope = new OwnVariables();
        var lines = new List<string>();
        var spec = new ProcessSpec("/bin/sh", ["-c", $"echo ${{{ChildEnvironment.TieringMultiplier}:-unset}} ${{{Legacy}:-unset}}"])
        {
            Environment = new Dictionary<string, string> { [ChildEnvironment.TieringMultiplier] = "10" },
            OnOutputLine = lines.Add,
        };

        Assert.Equal(0, await ProcessRunner.RunAsync(spec, default));

        Assert.Equal("10 unset", Assert.Single(lines));
    }

    [Fact]
    public async Task ShellPrefix_PerflabStartedThroughAShellCommand_GetsItsOwnMultiplierBack()
    {
        using var scope = new OwnVariables();
        var command = $"exec {ChildEnvironment.ShellPrefix}/bin/sh -c 'echo ${ChildEnvironment.TieringMultiplier}'";

        // As `perflab host ...` is started: a shell command run by a child whose own environment was cleaned.
        var result = await ProcessRunner.RunAsync("/bin/sh", ["-c", command], null, TimeSpan.FromSeconds(30), default);

        Assert.Equal(0, result.ExitCode);
        Assert.Equal("1", result.Output);
    }

    // The variables of a started process, as the kernel recorded them at its exec: once the child has exec'd `sleep`
    // (its command line reads "sleep"), its environ is the one ProcessRunner gave it.
    private static async Task<string[]> StartedEnvironmentAsync(int pid)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while (!File.ReadAllText($"/proc/{pid}/cmdline").StartsWith("sleep", StringComparison.Ordinal))
        {
            Assert.True(DateTime.UtcNow < deadline, $"process {pid} did not exec sleep within 10 s");
            await Task.Delay(20);
        }
        return File.ReadAllText($"/proc/{pid}/environ").Split('\0', StringSplitOptions.RemoveEmptyEntries);
    }

    // perflab's own environment as its launcher makes it (both spellings, and a control variable that must pass),
    // restored afterwards. Another test's child started meanwhile goes through the same cleaning.
    private sealed class OwnVariables : IDisposable
    {
        private readonly string? multiplier = Environment.GetEnvironmentVariable(ChildEnvironment.TieringMultiplier);
        private readonly string? legacy = Environment.GetEnvironmentVariable(Legacy);

        public OwnVariables()
        {
            Environment.SetEnvironmentVariable(ChildEnvironment.TieringMultiplier, "1");
            Environment.SetEnvironmentVariable(Legacy, "1");
            Environment.SetEnvironmentVariable(Control, "inherited");
        }

        public void Dispose()
        {
            Environment.SetEnvironmentVariable(ChildEnvironment.TieringMultiplier, multiplier);
            Environment.SetEnvironmentVariable(Legacy, legacy);
            Environment.SetEnvironmentVariable(Control, null);
        }
    }
}
