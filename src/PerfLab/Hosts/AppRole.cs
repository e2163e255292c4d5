using System.Globalization;
using System.Net;
using System.Text.Json;
using PerfLab.Apps;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// The app role on its host (<c>perflab host app</c>): reads what to start (<see cref="AppOrder"/>, one JSON line: the
/// built-in SUT's launch with the connection string to the database host, or a user's app from the build the
/// controller copied here), starts it listening on this host's address, answers <c>ready URL LOG</c>, checks its
/// variant on request as a local run does (<c>check</c>, answered <c>effect JSON</c>: the built-in SUT's /info, the
/// process's environment and GC mode read here), reads its counters, traces and JIT events on request
/// (<see cref="AppCounters"/>, <see cref="AppTrace"/>, <see cref="AppJitWatch"/>: EventPipe works on the app's own host),
/// and stops it when its session's input ends. An app that exits by itself sends the tail of its log and ends the
/// session, which the controller sees as the app having crashed.
/// </summary>
internal static class AppRole
{
    private static readonly TimeSpan ExitPoll = TimeSpan.FromMilliseconds(200);

    public static async Task<int> RunAsync(IPAddress listen, RoleLines lines, CancellationToken ct)
    {
        var json = await lines.Input.ReadLineAsync(ct);
        if (json is null)
        {
            return (int)ExitCode.Interrupted;
        }
        var order = Order(json);
        if (order is null)
        {
            lines.Write("failed", "expected the app's launch as one JSON line (is this perflab the controller's version?)");
            return (int)ExitCode.Usage;
        }
        var logs = RoleLines.PrivateFolder("logs");
        KeepNewestLogs(logs);
        var logFile = Path.Combine(logs,
            string.Create(CultureInfo.InvariantCulture, $"app-{DateTime.UtcNow:yyyyMMdd-HHmmss-fff}.log"));
        IRunningApp app;
        try
        {
            app = await order.On(listen).StartAsync(logFile, lines.Say, ct);
        }
        catch (PerfLabException ex)
        {
            lines.Write("failed", ex.Message);
            return (int)ex.ExitCode;
        }
        await using (app)
        {
            lines.Write("ready", $"{app.BaseAddress} {logFile}");
            return await ServeAsync(app, lines, logFile, ct);
        }
    }

    /// <summary>Answers the controller's requests until the session's input ends (success) or the app exits by itself.</summary>
    private static AppOrder? Order(string json)
    {
        try
        {
            return JsonSerializer.Deserialize<AppOrder>(json, RoleLines.Json);
        }
        catch (JsonException)
        {
            return null;
        }
    }

    private static async Task<int> ServeAsync(IRunningApp app, RoleLines lines, string logFile, CancellationToken ct)
    {
        using var gone = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var exited = ExitedAsync(app, gone.Token);
        var counters = new AppCounters(app.Pid, lines);
        var trace = new AppTrace(app.Pid, lines);
        var jit = new AppJitWatch(app.Pid, lines);
        var served = lines.EachLineAsync(async line =>
        {
            await CheckAsync(app, line, lines);
            await counters.HandleAsync(line);
            await trace.HandleAsync(line);
            await jit.HandleAsync(line);
        }, ct);
        var first = await Task.WhenAny(served, exited);
        await gone.CancelAsync();
        await counters.StopAsync();
        await trace.AbandonAsync();
        await jit.StopAsync();
        if (first == served && served.Exception?.InnerException is PerfLabException failed)
        {
            lines.Write("failed", failed.Message);
            return (int)failed.ExitCode;
        }
        if (first != exited || !app.HasExited)
        {
            return (int)ExitCode.Success;
        }
        lines.Write("log", File.Exists(logFile) ? string.Join('\n', File.ReadLines(logFile).TakeLast(30)) : "(no log)");
        lines.Write("failed", string.Create(CultureInfo.InvariantCulture, $"the app exited by itself (exit code {app.ExitCode})"));
        return (int)ExitCode.Failed;
    }

    /// <summary>
    /// On <c>check</c>: the variant checked here, as a local run checks it, sent as <c>effect JSON</c> or
    /// <c>effect-failed MESSAGE</c>.
    /// </summary>
    private static async Task CheckAsync(IRunningApp app, string line, RoleLines lines)
    {
        if (line != "check")
        {
            return;
        }
        try
        {
            var effect = await app.CheckVariantAsync(CancellationToken.None);
            lines.Write("effect", JsonSerializer.Serialize(effect, RoleLines.Json));
        }
        catch (PerfLabException ex)
        {
            lines.Write("effect-failed", ex.Message.Replace('\n', ' '));
        }
    }

    /// <summary>How many app logs a host keeps: each run's app writes one, so older ones go as new ones come.</summary>
    internal const int KeptLogs = 20;

    /// <summary>The newest <see cref="KeptLogs"/> - 1 logs kept (this start adds one); a log another app still writes is
    /// among the newest.</summary>
    private static void KeepNewestLogs(string folder)
    {
        var newestFirst = new DirectoryInfo(folder).EnumerateFiles("app-*.log").OrderByDescending(f => f.LastWriteTimeUtc);
        foreach (var old in newestFirst.Skip(KeptLogs - 1))
        {
            try
            {
                old.Delete();
            }
            catch (IOException)
            {
                // Removed by another role at the same moment (hosts sharing a home).
            }
        }
    }

    // IRunningApp has no exit task (a local run reads HasExited when it needs to): polled, an exit is seen within 0.2 s.
    private static async Task ExitedAsync(IRunningApp app, CancellationToken ct)
    {
        try
        {
            while (!app.HasExited)
            {
                await Task.Delay(ExitPoll, ct);
            }
        }
        catch (OperationCanceledException)
        {
        }
    }
}
