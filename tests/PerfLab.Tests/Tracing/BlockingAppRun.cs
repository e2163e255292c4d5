using System.Diagnostics;
using System.Text.RegularExpressions;
using PerfLab.Common;
using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

/// <summary>What one traced stretch of BlockingApp's endpoints gave, and the requests completed per second meanwhile.</summary>
/// <param name="AppBlockedMs">What each culprit's blocking call took on average, as the app measured it around the call.</param>
internal sealed record BlockingRun(TraceProfile Profile, double RequestsPerSecond, long Requests, IReadOnlyList<TraceFinding> Findings,
    IReadOnlyDictionary<string, double> AppBlockedMs)
{
    public string Describe() =>
        $"traced {Profile.TracedSeconds:F1} s, tick {Profile.TickIntervalMs:F2} ms, {Requests} requests ({RequestsPerSecond:F1}/s), "
        + $"{Profile.Requests?.TimedWaits} waits timed by the runtime; sites: " +
        string.Join("; ", Profile.BlockingWaits.Select(w => $"{TraceFindings.CallName(w)} at {TraceFindings.Handler(w)} (app {w.AppPlace}) "
            + $"{w.Ms:F0} ms, {w.Route?.MsPerRequest:F1} ms/req of {w.Route?.Requests} to {w.Route?.Path} ({w.Route?.MeanMs:F1} ms on the server, "
            + $"{w.Route?.TimedWaits} waits timed)")) +
        "; the app measured: " + string.Join(", ", AppBlockedMs.Select(b => $"{b.Key} {b.Value:F1} ms")) +
        "; findings: " + string.Join("; ", Findings.Select(f => $"[{(f.Strong ? "strong" : "weak")}] {f.Message}"));
}

/// <summary>
/// tests/apps/BlockingApp, a user's kind of app (top-level statements, global namespace) with known blocking culprits,
/// started once for a test class: a test loads its endpoints, traces them with <see cref="TraceSession"/> and analyses it
/// as `perflab run` does for an app of one's own (its main module names the app's code).
/// </summary>
public sealed partial class BlockingApp : IAsyncLifetime
{
    private Process? _process;
    private HttpClient? _client;

    public async Task InitializeAsync()
    {
        var dll = Dll();
        // Its own folder as the content root: the test's folder holds other apps' appsettings.json.
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = Path.GetDirectoryName(dll)!,
        };
        start.ArgumentList.Add(dll);
        start.ArgumentList.Add("--urls");
        start.ArgumentList.Add("http://127.0.0.1:0");
        // Per-request logging would put the console logger's lock in every trace.
        start.Environment["Logging__LogLevel__Microsoft.AspNetCore"] = "Warning";
        start.Environment["Logging__LogLevel__Microsoft.Hosting.Lifetime"] = "Information";
        _process = Process.Start(start)!;
        var seen = new System.Text.StringBuilder();
        _process.ErrorDataReceived += (_, e) => { lock (seen) { seen.AppendLine(e.Data); } };
        _process.BeginErrorReadLine();
        using var ready = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        while (await ReadLineAsync(seen, ready.Token) is { } line)
        {
            lock (seen)
            {
                seen.AppendLine(line);
            }
            if (Listening().Match(line) is { Success: true } m)
            {
                _client = new HttpClient { BaseAddress = new Uri(m.Groups[1].Value), Timeout = TimeSpan.FromSeconds(30) };
                _ = _process.StandardOutput.ReadToEndAsync(CancellationToken.None);
                return;
            }
        }
        throw new InvalidOperationException("BlockingApp exited before listening: " + seen);
    }

    private async Task<string?> ReadLineAsync(System.Text.StringBuilder seen, CancellationToken ct)
    {
        try
        {
            return await _process!.StandardOutput.ReadLineAsync(ct);
        }
        catch (OperationCanceledException)
        {
            throw new TimeoutException($"BlockingApp did not say it was listening within 60 s (exited: {_process!.HasExited}): {seen}");
        }
    }

    public async Task DisposeAsync()
    {
        _client?.Dispose();
        if (_process is { HasExited: false })
        {
            _process.Kill();
            await _process.WaitForExitAsync();
        }
        _process?.Dispose();
    }

    /// <summary>
    /// Loads each of <paramref name="paths"/> with one closed-loop user at once, traces it, analyses the trace. The app
    /// times its blocking calls from the trace's start, so its figures cover the traced stretch.
    /// </summary>
    internal async Task<BlockingRun> TraceAsync(IReadOnlyList<string> paths, TimeSpan traced)
    {
        var client = _client!;
        foreach (var path in paths)
        {
            (await client.GetAsync(path)).EnsureSuccessStatusCode();
        }
        using var stop = new CancellationTokenSource();
        var completed = new long[1];
        var counting = new int[1];
        var load = Task.WhenAll(paths.Select(path => LoopAsync(client, path, completed, counting, stop.Token)));
        // The first requests of each kind JIT their code: trace after them.
        await Task.Delay(TimeSpan.FromSeconds(1.5));
        var file = Path.Combine(TestCaches.NewFolder(), "blocking.nettrace");
        (await client.PostAsync("/blocked/reset", null)).EnsureSuccessStatusCode();
        Volatile.Write(ref counting[0], 1);
        var clock = Stopwatch.StartNew();
        await TraceSession.CollectAsync(new PerfLab.Tracing.TraceOptions(_process!.Id, traced, file), CancellationToken.None);
        var seconds = clock.Elapsed.TotalSeconds;
        Volatile.Write(ref counting[0], 0);
        var measured = await System.Net.Http.Json.HttpClientJsonExtensions.GetFromJsonAsync<Dictionary<string, double>>(client, "/blocked");
        await stop.CancelAsync();
        await load;
        var profile = TraceAnalysis.Analyze(file, new TraceAnalysisOptions(AppNamespace: "", AppModule: "BlockingApp"));
        var requests = Interlocked.Read(ref completed[0]);
        return new BlockingRun(profile, requests / seconds, requests, TraceFindings.From(profile, requests), measured!);
    }

    private static async Task LoopAsync(HttpClient client, string path, long[] completed, int[] counting, CancellationToken ct)
    {
        while (!ct.IsCancellationRequested)
        {
            try
            {
                using var response = await client.GetAsync(path, ct);
                if (response.IsSuccessStatusCode && Volatile.Read(ref counting[0]) == 1)
                {
                    Interlocked.Increment(ref completed[0]);
                }
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
            }
        }
    }

    // tests/apps/BlockingApp/bin/<configuration>/net10.0, built with this test project (a project reference).
    internal static string Dll()
    {
        var configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd('/')).Parent!.Name;
        var dll = Path.Combine(PerfLabPaths.RepoRoot, "tests", "apps", "BlockingApp", "bin", configuration, "net10.0", "BlockingApp.dll");
        return File.Exists(dll) ? dll : throw new FileNotFoundException("BlockingApp is not built; build tests/PerfLab.Tests.", dll);
    }

    [GeneratedRegex(@"Now listening on: (http://127\.0\.0\.1:\d+)")]
    private static partial Regex Listening();
}
