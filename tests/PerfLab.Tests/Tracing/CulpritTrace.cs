using PerfLab.SutProcesses;
using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

/// <summary>What one traced run of a culprit endpoint gave: the profile, the requests completed while tracing, the file.</summary>
/// <param name="ProcessCpuMs">The SUT's own CPU time (user + system) while the trace ran, to check the sampled CPU against.</param>
internal sealed record CulpritRun(TraceProfile Profile, long Requests, string TracePath, IReadOnlyList<TraceFinding> Findings,
    double ProcessCpuMs);

/// <summary>
/// Starts a fresh SUT, sends a culprit endpoint concurrent requests from an HttpClient loop, traces it for a few
/// seconds with <see cref="TraceSession"/> and analyses the file: the real pipeline on a real process.
/// </summary>
internal static class CulpritTrace
{
    public static async Task<CulpritRun> RunAsync(string path, int users, TimeSpan duration,
        IReadOnlyDictionary<string, string>? settings = null, string? connectionString = null)
    {
        var folder = TestCaches.NewFolder();
        var launch = SutLaunch.Default(connectionString) with
        {
            Settings = settings ?? new Dictionary<string, string>(),
            LogFile = Path.Combine(folder, "sut.log"),
        };
        await using var sut = await SutProcess.StartAsync(launch);
        using var client = sut.CreateClient(TimeSpan.FromSeconds(30));
        // A few requests first, so the JIT's first compilations are not what the trace sees.
        for (var i = 0; i < 3; i++)
        {
            (await client.GetAsync(path)).EnsureSuccessStatusCode();
        }

        using var stop = new CancellationTokenSource();
        var completed = new long[1];
        var tracing = new long[1];
        var load = LoadAsync(client, path, users, completed, tracing, stop.Token);
        var file = Path.Combine(folder, "culprit.nettrace");
        Volatile.Write(ref tracing[0], 1);
        var cpuBefore = CpuMs(sut.Pid);
        await TraceSession.CollectAsync(new TraceOptions(sut.Pid, duration, file), CancellationToken.None);
        var cpuMs = CpuMs(sut.Pid) - cpuBefore;
        Volatile.Write(ref tracing[0], 0);
        await stop.CancelAsync();
        await load;

        var profile = TraceAnalysis.Analyze(file, new TraceAnalysisOptions("PerfLab.Sut"));
        var requests = Interlocked.Read(ref completed[0]);
        return new CulpritRun(profile, requests, file, TraceFindings.From(profile, requests), cpuMs);
    }

    // Counts only the requests that complete while the trace runs, so per-request figures divide like with like.
    private static async Task LoadAsync(HttpClient client, string path, int users, long[] completed, long[] tracing,
        CancellationToken ct)
    {
        var loops = Enumerable.Range(0, users).Select(async _ =>
        {
            while (!ct.IsCancellationRequested)
            {
                try
                {
                    using var response = await client.GetAsync(path, ct);
                    if (response.IsSuccessStatusCode && Volatile.Read(ref tracing[0]) == 1)
                    {
                        Interlocked.Increment(ref completed[0]);
                    }
                }
                catch (OperationCanceledException) when (ct.IsCancellationRequested)
                {
                }
            }
        });
        await Task.WhenAll(loops);
    }

    private static double CpuMs(int pid)
    {
        using var process = System.Diagnostics.Process.GetProcessById(pid);
        return process.TotalProcessorTime.TotalMilliseconds;
    }

    /// <summary>A readable dump for assertion messages: the numbers a failing test should show.</summary>
    public static string Describe(CulpritRun run)
    {
        var p = run.Profile;
        var lines = new List<string>
        {
            $"traced {p.TracedSeconds:F1} s, tick {p.TickIntervalMs:F2} ms (cpu weight {p.SampleIntervalMs:F2}), cpu {p.CpuSamples}, waiting {p.WaitingSamples}, requests {run.Requests}",
            $"sampled CPU {p.CpuMs:F0} ms (gc {p.Gc.CpuMs:F0}), process CPU {run.ProcessCpuMs:F0} ms",
            "components: " + string.Join(", ", p.Components.Select(c => $"{c.Component} {c.Ms:F0} ms ({c.Share:P0})")),
            $"gc: {string.Join("/", p.Gc.CountByGeneration)} pause {p.Gc.PauseMs:F0} ms heaps {p.Gc.Heaps}",
            "contention: " + string.Join("; ", p.Contention.Take(5).Select(c => $"{c.Place} x{c.Count} {c.BlockedMs:F0} ms (spin {c.AcquireCpuMs:F0} ms)")),
            "waits: " + string.Join("; ", p.BlockingWaits.Take(5).Select(w => $"{w.Place} [{w.WaitFrame}] {w.Ms:F0} ms ({w.MsPerRequest:F2} per request), stack "
                + string.Join(" > ", w.ExampleStack))),
            p.Requests is { } r ? $"requests wholly traced {r.Requests} (left out {r.LeftOut}): blocked {r.BlockedMsPerRequest:F2} ms, "
                + $"served {r.MeanMs:F2} ms per request; by site: " + string.Join("; ", r.BySite.Select(s => $"{s.Key.Replace('\n', ' ')} {s.Value:F2}"))
                + "; by path: " + string.Join("; ", r.Paths.Select(x => $"{x.Path} x{x.Requests} {x.BlockedMsPerRequest:F2}/{x.MeanMs:F2} ms"))
                : "no request events",
            "findings: " + string.Join("; ", run.Findings.Select(f => $"{f.Kind} @ {f.Place}: {f.Message}")),
        };
        return string.Join(Environment.NewLine, lines);
    }
}
