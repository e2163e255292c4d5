using PerfLab.Apps;
using PerfLab.Common;

namespace PerfLab.Tests.Apps;

/// <summary>
/// One perflab cache for the CLI runs of the classes of <see cref="CpuHeavy.A"/>, so samples/TinyShop is published once
/// (by the first run that needs it) and reused by the others, as a user's second run would reuse it.
/// </summary>
public sealed class TinyShopBuild
{
    public static string Project => Path.Combine(PerfLabPaths.RepoRoot, "samples", "TinyShop");

    public static string Experiments => Path.Combine(Project, "experiments");

    public string CacheDir { get; } = TestCaches.NewFolder();

    public string AppsFolder => Path.Combine(CacheDir, "apps");

    public IReadOnlyDictionary<string, string> Environment => new Dictionary<string, string> { [PerfLabPaths.CacheDirVariable] = CacheDir };

    private readonly SemaphoreSlim _gate = new(1, 1);
    private string? _dll;
    private readonly Lazy<Task<CachingRun>> _cachingRun;

    public TinyShopBuild() => _cachingRun = new(RunCachingAsync);

    /// <summary>
    /// One `perflab run caching --profile smoke --repeat 3 --precision 30%` with the trace on, --json and --junit, read by two tests:
    /// AppRunTests (the runs, counters, trace and report) and CiOutputRunTests (the JSON summary on stdout). One run
    /// of TinyShop instead of two; each test still asserts all it did. Its folders go with the test caches.
    /// </summary>
    internal Task<CachingRun> CachingRunAsync() => _cachingRun.Value;

    private async Task<CachingRun> RunCachingAsync()
    {
        await DllAsync();
        // A folder of the test caches (removed when the test host exits) with the run's own output folder inside it.
        var folder = TestCaches.NewFolder();
        var output = Path.Combine(folder, "out");
        var junit = Path.Combine(folder, "junit.xml");
        var result = await PerfLabProcess.RunAsync(Environment, "run", "--experiments-dir", Experiments, "caching", "--profile", "smoke",
            // Three blocks, more while the interval is wider than 30 % (a busy CI host), within 4 minutes.
            "--repeat", "3", "--precision", "30%", "--budget", "4m", "--trace", "--out", output, "--json", "--junit", junit);
        return new CachingRun(result, output);
    }

    /// <summary>
    /// TinyShop published into this cache, exactly where `perflab run` looks (apps/ under PERFLAB_CACHE_DIR): tests call
    /// it first, so no CLI run spends its time limit on the build.
    /// </summary>
    public async Task<string> DllAsync()
    {
        await _gate.WaitAsync();
        try
        {
            return _dll ??= (await AppBuilds.PublishAsync(Project, gitRef: null, progress: null, CancellationToken.None,
                AppsFolder)).Dll;
        }
        finally
        {
            _gate.Release();
        }
    }
}

/// <summary>The shared caching run: what the CLI printed and the folder it wrote.</summary>
internal sealed record CachingRun(CliResult Result, string Output);
