using System.Diagnostics;
using PerfLab.Cli;
using PerfLab.Counters;

namespace PerfLab.Tests.Counters;

public sealed class DotnetProcessesTests
{
    [Fact]
    public void Resolve_PidThatDoesNotExist_ThrowsUnreachable()
    {
        var error = Assert.Throws<PerfLabException>(() => DotnetProcesses.Resolve("999999999"));
        Assert.Equal(ExitCode.Unreachable, error.ExitCode);
        Assert.Contains("no process with id", error.Message);
    }

    [Fact]
    public async Task CollectAsync_ProcessThatIsNotDotnet_ThrowsUnreachable()
    {
        using var sleeper = Process.Start(new ProcessStartInfo("sleep", "30"))!;
        try
        {
            var error = await Assert.ThrowsAsync<PerfLabException>(() =>
                CounterCollector.CollectAsync(sleeper.Id, new CounterOptions(), null, CancellationToken.None));
            Assert.Equal(ExitCode.Unreachable, error.ExitCode);
            Assert.Contains("not a .NET process", error.Message);
        }
        finally
        {
            sleeper.Kill();
            await sleeper.WaitForExitAsync();
        }
    }

    [Fact]
    public void Resolve_NameMatchingNothing_ThrowsUnreachable()
    {
        var error = Assert.Throws<PerfLabException>(() => DotnetProcesses.Resolve("no-such-app-" + Guid.NewGuid().ToString("N")));
        Assert.Equal(ExitCode.Unreachable, error.ExitCode);
    }

    [Fact]
    public async Task Resolve_AppDllName_FindsTheSut()
    {
        await using var sut = await CounterCollectorTests.StartSutAsync();
        var matches = DotnetProcesses.List().Where(p => p.CommandLine?.Contains("PerfLab.Sut.dll", StringComparison.Ordinal) == true).ToList();
        Assert.Contains(matches, p => p.ProcessId == sut.Pid);
        if (matches.Count == 1)
        {
            Assert.Equal(sut.Pid, DotnetProcesses.Resolve("PerfLab.Sut").ProcessId);
        }
        else
        {
            // Other test classes run SUTs at the same time: then the name is ambiguous, a usage error naming the pids.
            var error = Assert.Throws<PerfLabException>(() => DotnetProcesses.Resolve("PerfLab.Sut"));
            Assert.Equal(ExitCode.Usage, error.ExitCode);
        }
    }

    [Fact]
    public void RuntimeVersion_OwnProcess_IsTheRunningRuntime()
    {
        Assert.Equal(Environment.Version, DotnetProcesses.RuntimeVersion(Environment.ProcessId));
    }
}
