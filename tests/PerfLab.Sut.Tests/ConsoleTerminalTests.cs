using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

/// <summary>Console=terminal: the SUT's output goes to a pseudo-terminal that perflab reads (seed 004's console).</summary>
public sealed class ConsoleTerminalTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private const string OrderLine = "Information PerfLab.Sut.Logging.RequestLog[0] Served order ";

    [Fact]
    public async Task LockedConsole_OnATerminal_PerflabReadsOneLineForEachRequest()
    {
        const int requests = 300;
        var db = await postgres.CreateDatabaseAsync();
        var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["Logging"] = "locked-console", ["Console"] = "terminal" });
        try
        {
            var info = await sut.InfoAsync();
            Assert.Equal(("terminal", "locked-console"), (info.Console, info.Logging));
            Assert.StartsWith("/dev/pts/", sut.Process.Terminal?.SlavePath, StringComparison.Ordinal);
            // Eight callers at once, so the lock is contended as under load.
            await Parallel.ForEachAsync(Enumerable.Range(0, requests), new ParallelOptions { MaxDegreeOfParallelism = 8 },
                async (i, ct) => await sut.GetJsonAsync($"/customer/orders/{43659 + i}"));
        }
        finally
        {
            await sut.DisposeAsync();   // stops the SUT, then reads what is left in the terminal and closes it
        }
        var terminal = sut.Process.Terminal!;
        var transcript = terminal.TranscriptFile;
        var linesRead = terminal.LinesRead;

        var lines = await File.ReadAllLinesAsync(transcript);
        var served = lines.Where(l => l.Contains(OrderLine, StringComparison.Ordinal)).ToList();
        Assert.Equal(requests, served.Count);
        Assert.Equal(Enumerable.Range(43659, requests).ToHashSet(),
            served.Select(l => int.Parse(l[(l.IndexOf(OrderLine, StringComparison.Ordinal) + OrderLine.Length)..], System.Globalization.CultureInfo.InvariantCulture)).ToHashSet());
        // Every line of the transcript came through the terminal (the readiness line too), and the terminal's
        // carriage returns were taken out.
        Assert.Equal(lines.Length, linesRead);
        Assert.Contains(lines, l => l.StartsWith(SutProcess.ReadinessPrefix, StringComparison.Ordinal));
        Assert.DoesNotContain(lines, l => l.Contains('\r'));
    }

    [Fact]
    public async Task NoConsoleSetting_OutputGoesToTheLogFileAndInfoSaysRedirected()
    {
        await using var sut = await SutHost.StartAsync(null);
        Assert.Null(sut.Process.Terminal);
        Assert.Equal("redirected", (await sut.InfoAsync()).Console);
    }

    [Fact]
    public async Task ConsoleTerminal_Detached_IsRefusedBeforeAnythingStarts()
    {
        var launch = new SutLaunch(new Dictionary<string, string> { ["Console"] = "terminal" }, new Dictionary<string, string>(), null,
            LogFile: Path.Combine(Path.GetTempPath(), "perflab-tests", $"sut-{Guid.NewGuid():N}.log"));
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => SutProcess.StartAsync(launch, detached: true));
        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("--foreground", ex.Message);
    }
}
