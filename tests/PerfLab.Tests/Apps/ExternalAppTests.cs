using PerfLab.Apps;
using PerfLab.Common;

namespace PerfLab.Tests.Apps;

/// <summary>Starting an app of one's own: its port, its readiness, and a clear failure with its log when it is not ready.</summary>
public sealed class ExternalAppTests : IDisposable
{
    private readonly string _folder = TestCaches.NewFolder();

    public void Dispose() => TestCaches.Delete(_folder);

    private AppLaunch Command(string command, TimeSpan readyTimeout, AppBinding binding = AppBinding.Placeholder) => new(
        new AppSource(AppSourceKind.Command, command), binding, "/ready", readyTimeout,
        new Dictionary<string, string> { ["GREETING"] = "hi" }, new Dictionary<string, string>(), ConfigurationVia.Arguments, _folder);

    [Fact]
    public async Task Start_AppThatExitsFirst_FailsWithItsExitCodeAndLogTail()
    {
        var app = new ExternalApp(Command("sh -c 'echo cannot bind {port}: $GREETING; exit 3'", TimeSpan.FromSeconds(30)));

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => app.StartAsync(Path.Combine(_folder, "app.log"), null, CancellationToken.None));

        Assert.StartsWith("the app exited with code 3 before it was ready at http://127.0.0.1:", ex.Message, StringComparison.Ordinal);
        Assert.Matches(@"\|\s*cannot bind \d+: hi", ex.Message);
    }

    [Fact]
    public async Task Start_AppThatNeverAnswers_FailsAfterItsTimeoutWithItsLogAndIsStopped()
    {
        var app = new ExternalApp(Command("sh -c 'echo waiting; exec sleep 60'", TimeSpan.FromSeconds(1), AppBinding.Environment));
        var log = Path.Combine(_folder, "app.log");
        var clock = System.Diagnostics.Stopwatch.StartNew();

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => app.StartAsync(log, null, CancellationToken.None));

        Assert.InRange(clock.Elapsed.TotalSeconds, 1, 20);
        Assert.Contains("the app was not ready within 1s: GET /ready on http://127.0.0.1:", ex.Message, StringComparison.Ordinal);
        Assert.Contains("| waiting", ex.Message, StringComparison.Ordinal);
        Assert.Empty(ProcessesLoggingTo(log));
    }

    /// <summary>Processes whose environment names this log file: the app perflab started, if it still runs.</summary>
    private static List<int> ProcessesLoggingTo(string log)
    {
        var marker = "PERFLAB_APP_LOG=" + log + "\0";
        var found = new List<int>();
        foreach (var folder in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(folder), out var pid))
            {
                continue;
            }
            try
            {
                if (File.ReadAllText(Path.Combine(folder, "environ")).Contains(marker, StringComparison.Ordinal))
                {
                    found.Add(pid);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
            }
        }
        return found;
    }
}
