using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Micro;

namespace PerfLab.Tests.Micro;

// The child-process runner behind `perflab micro` against real processes: a silent child is stopped as hung and its
// process is gone; a child that keeps printing runs as long as it needs.
public sealed class ChildProcessTests
{
    [Fact]
    public async Task RunAsync_ChildSilentBeyondTheLimit_IsKilledAndNamed()
    {
        var lines = new List<string>();

        var error = await Assert.ThrowsAsync<PerfLabException>(() => ChildProcess.RunAsync(
            "/bin/sh", ["-c", "echo $$; exec sleep 60"], Path.GetTempPath(), TimeSpan.FromSeconds(1), lines.Add, default));

        Assert.IsType<TimeoutException>(error.InnerException);
        Assert.Equal(ExitCode.Environment, error.ExitCode);
        Assert.Contains("'sh -c echo $$; exec sleep 60 ...' printed nothing for 1s", error.Message);
        var pid = int.Parse(Assert.Single(lines));
        Assert.False(Directory.Exists($"/proc/{pid}"), $"the hung child {pid} is still running");
    }

    [Fact]
    public async Task RunAsync_ChildPrintingMoreOftenThanTheLimit_RunsToItsEnd()
    {
        var lines = new List<string>();

        var rc = await ChildProcess.RunAsync("/bin/sh", ["-c", "for i in 1 2 3 4 5 6; do echo $i; sleep 0.4; done; exit 3"],
            Path.GetTempPath(), TimeSpan.FromSeconds(1.5), lines.Add, default);

        Assert.Equal(3, rc);
        Assert.Equal(["1", "2", "3", "4", "5", "6"], lines);
    }
}
