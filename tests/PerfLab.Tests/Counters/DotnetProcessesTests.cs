using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;
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
        Assert.Contains(DotnetProcesses.List(), p => p.ProcessId == sut.Pid && p.CommandLine!.Contains("PerfLab.Sut.dll", StringComparison.Ordinal));

        // Other test classes start and stop SUTs at the same time, so the name may be ambiguous at the moment of the
        // call (a list taken just before cannot tell): then it is a usage error naming every match, ours among them.
        try
        {
            Assert.Equal(sut.Pid, DotnetProcesses.Resolve("PerfLab.Sut").ProcessId);
        }
        catch (PerfLabException error)
        {
            Assert.Equal(ExitCode.Usage, error.ExitCode);
            Assert.Contains("matches", error.Message);
            Assert.Contains(sut.Pid.ToString(CultureInfo.InvariantCulture), error.Message);
        }
    }

    [Fact]
    public async Task Resolve_NameOfTwoRunningApps_UsageErrorNamingBothPids()
    {
        await using var first = await CounterCollectorTests.StartSutAsync();
        await using var second = await CounterCollectorTests.StartSutAsync();

        var error = Assert.Throws<PerfLabException>(() => DotnetProcesses.Resolve("PerfLab.Sut"));

        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Contains("give the pid", error.Message);
        Assert.Contains(first.Pid.ToString(CultureInfo.InvariantCulture), error.Message);
        Assert.Contains(second.Pid.ToString(CultureInfo.InvariantCulture), error.Message);
    }

    [Fact]
    public void RuntimeVersion_OwnProcess_IsTheRunningRuntime()
    {
        Assert.Equal(Environment.Version, DotnetProcesses.RuntimeVersion(Environment.ProcessId));
    }
}
