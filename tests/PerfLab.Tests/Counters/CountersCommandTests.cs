using System.Diagnostics;
using System.Globalization;
using PerfLab.Counters;


namespace PerfLab.Tests.Counters;

// The verb as a user runs it: a real perflab process attached to a real SUT.
public sealed class CountersCommandTests
{
    [Fact]
    public async Task Collect_CsvOut_WritesOneRowPerSecondAndSucceeds()
    {
        await using var sut = await CounterCollectorTests.StartSutAsync();
        var path = Path.Combine(Path.GetTempPath(), $"perflab-counters-{Guid.NewGuid():N}.csv");
        try
        {
            var result = await PerfLabProcess.RunAsync("counters", "collect", sut.Pid.ToString(CultureInfo.InvariantCulture), "-d", "3s", "--out", path);

            Assert.True(result.ExitCode == 0, result.Stderr);
            var lines = await File.ReadAllLinesAsync(path);
            Assert.StartsWith("unix_seconds,utc,cpu-usage,working-set,", lines[0]);
            Assert.InRange(lines.Length - 1, 2, 4);
            Assert.Contains("written to", result.Stderr);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task Collect_CountersSystemRuntime_WritesTheRuntimeCountersOnly()
    {
        await using var sut = await CounterCollectorTests.StartSutAsync();
        var path = Path.Combine(Path.GetTempPath(), $"perflab-counters-{Guid.NewGuid():N}.csv");
        try
        {
            var result = await PerfLabProcess.RunAsync("counters", "collect", sut.Pid.ToString(CultureInfo.InvariantCulture), "-d", "2s",
                "--counters", "system.runtime", "--out", path);

            Assert.True(result.ExitCode == 0, result.Stderr);
            var header = (await File.ReadAllLinesAsync(path))[0].Split(',');
            Assert.Contains("threadpool-queue-length", header);
            Assert.Contains(CounterCatalog.StarvationCounter, header);
            Assert.DoesNotContain("requests-per-second", header);
            Assert.DoesNotContain("current-connections", header);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task Monitor_ProcessStopsMidway_SaysSoAndFails()
    {
        await using var sut = await CounterCollectorTests.StartSutAsync();
        using var monitor = Process.Start(PerfLabProcess.StartInfo(null, "counters", "monitor", sut.Pid.ToString(CultureInfo.InvariantCulture), "-d", "40s"))!;
        try
        {
            using var budget = new CancellationTokenSource(TimeSpan.FromSeconds(60));
            var stderr = monitor.StandardError.ReadToEndAsync(budget.Token);
            // Redirected, monitor prints one plain line per sample: the first one says the collector is attached.
            var first = await monitor.StandardOutput.ReadLineAsync(budget.Token);
            Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \S+=", first);
            await sut.StopAsync();
            _ = await monitor.StandardOutput.ReadToEndAsync(budget.Token);
            await monitor.WaitForExitAsync(budget.Token);

            Assert.Equal(1, monitor.ExitCode);
            Assert.Contains("exited during collection", await stderr);
        }
        finally
        {
            if (!monitor.HasExited)
            {
                monitor.Kill();
            }
        }
    }

    [Theory]
    [InlineData("999999999", 4)]
    [InlineData("no-such-dotnet-app-for-perflab", 4)]
    public async Task Collect_TargetThatCannotBeAttached_ClearMessageAndExitCode(string target, int exitCode)
    {
        var result = await PerfLabProcess.RunAsync("counters", "collect", target, "-d", "2s", "--out", Path.Combine(Path.GetTempPath(), "never-written.json"));

        Assert.Equal(exitCode, result.ExitCode);
        Assert.StartsWith("error: ", result.Stderr);
        Assert.DoesNotContain("   at ", result.Stderr);
    }

    [Theory]
    [InlineData("-d", "abc")]
    [InlineData("-d", "0s")]
    [InlineData("-i", "10ms")]
    [InlineData("--out", "counters.txt")]
    [InlineData("--counters", "System.Runtimes")]
    [InlineData("--counters", "System.Runtime[cpu-usage")]
    [InlineData("--counters", ",")]
    public async Task Collect_BadOption_UsageError(string option, string value)
    {
        var result = await PerfLabProcess.RunAsync("counters", "collect", "1", option, value);

        Assert.Equal(2, result.ExitCode);
        Assert.StartsWith("error: ", result.Stderr);
    }
}
