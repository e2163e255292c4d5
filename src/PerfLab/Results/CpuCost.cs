using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>
/// What one measured window (a slot, or a whole run's window) cost in CPU: the time the kernel charged the app and the
/// PostgreSQL backends serving it, against the requests completed in that window.
/// </summary>
/// <param name="Seconds">The window's length (wall clock).</param>
/// <param name="Requests">Requests completed in the window.</param>
/// <param name="AppCpuSeconds">CPU charged to the app's process, every thread, user + system.</param>
/// <param name="DatabaseCpuSeconds">CPU charged to the backends serving the
/// app; null when the server's processes are not visible from here.</param>
/// <param name="BackendsEnded">Backends of the server that ended during
/// the window: their last part is not counted (zero, normally).</param>
/// <param name="Slowdown">How much slower than full speed the cores ran in the window (1 = full speed), weighted by
/// how busy each was (<c>CoreSpeed</c>); null where not sampled (an app on another host).</param>
public sealed record CpuWindow(double Seconds, long Requests, double AppCpuSeconds, double? DatabaseCpuSeconds, int BackendsEnded = 0,
    double? Slowdown = null)
{
    /// <summary>App plus database CPU.</summary>
    [JsonIgnore]
    public double CpuSeconds => AppCpuSeconds + (DatabaseCpuSeconds ?? 0);

    /// <summary>Milliseconds of CPU per completed request; null without requests.</summary>
    [JsonIgnore]
    public double? MsPerRequest => Requests > 0 ? CpuSeconds * 1000 / Requests : null;

    /// <summary><see cref="MsPerRequest"/> at the cores' full speed; null when the speed was not sampled.</summary>
    [JsonIgnore]
    public double? FullSpeedMsPerRequest => Slowdown > 0 ? MsPerRequest / Slowdown : null;
}

/// <summary>
/// A run's cost per request over exactly its measured windows (one, or the variant's alternating slots): CPU added
/// up, requests added up, so a slot counts by its requests. The figure behind the <c>cpu-per-request</c> metric. When
/// the database's backends were read at some windows' edges and not at others' (a db role that did not answer an
/// edge in time), the per-request figures are those of the windows read whole (<see cref="Counted"/>): an app-only
/// window added in would make the request look cheaper than it was.
/// </summary>
public sealed record CpuCost(IReadOnlyList<CpuWindow> Windows)
{
    public long Requests => Windows.Sum(w => w.Requests);

    public double AppCpuSeconds => Windows.Sum(w => w.AppCpuSeconds);

    /// <summary>
    /// The windows the per-request figures are made of: those whose database part was read, when any was; every window
    /// when none was (a server whose processes are not visible from here).
    /// </summary>
    [JsonIgnore]
    public IReadOnlyList<CpuWindow> Counted => Windows.Any(w => w.DatabaseCpuSeconds is not null)
        ? [.. Windows.Where(w => w.DatabaseCpuSeconds is not null)]
        : Windows;

    /// <summary>Windows whose database part was not read while others' was: left out of the per-request figures.</summary>
    [JsonIgnore]
    public int WindowsWithoutDatabase => Windows.Count - Counted.Count;

    /// <summary>Null when no window could see the database's processes.</summary>
    public double? DatabaseCpuSeconds => Windows.Any(w => w.DatabaseCpuSeconds is not null)
        ? Windows.Sum(w => w.DatabaseCpuSeconds ?? 0)
        : null;

    /// <summary>App plus database CPU per request, in milliseconds, over <see cref="Counted"/>; null without requests.</summary>
    public double? MsPerRequest => PerRequest(Counted, w => w.CpuSeconds);

    /// <summary>
    /// <see cref="MsPerRequest"/> at the cores' full speed: each window's CPU divided by its slowdown, so that a stretch
    /// in which a shared host slowed the cores does not read as a dearer request, over the windows that are not spikes
    /// (<see cref="IsSpike"/>). Null unless every window was sampled.
    /// </summary>
    public double? FullSpeedMsPerRequest => Windows.Count > 0 && Windows.All(w => w.Slowdown > 0)
        ? PerRequest(WithoutSpikes(SpikeLimit()), w => w.CpuSeconds / w.Slowdown!.Value)
        : null;

    /// <summary>
    /// How many times its run's median window a window's full-speed cost per request must exceed to be a spike: 1.5, a
    /// rule fixed before the windows it was checked against were measured (docs/cost.md, "Spikes"). On noisy stretches
    /// a 2 s slot now and then cost 1.7-1.9 times its run's others, its requests halved and its backends' CPU per
    /// request tripled, in one variant and not the slots beside it: what the machine did in those seconds, not the
    /// variant. Within a run's own slots the quiet runs spread a few percent.
    /// </summary>
    public const double SpikeRatio = 1.5;

    /// <summary>
    /// Whether <paramref name="window"/> is a spike: one of three or more counted windows of a second or more, each
    /// sampled for speed and each with requests, whose full-speed cost per request exceeds <see cref="SpikeRatio"/>
    /// times their median. Left out of the full-speed figure and of its slot pairs; the plain <see cref="MsPerRequest"/>
    /// keeps every window.
    /// </summary>
    public bool IsSpike(CpuWindow window) => Counted.Contains(window) && Above(SpikeLimit(), window);

    /// <summary>
    /// The full-speed cost per request above which a counted window is a spike: <see cref="SpikeRatio"/> times their
    /// median; null where the rule does not apply (fewer than three, one unsampled or without requests, or short windows,
    /// which have their own rule: pairs at a matching core speed, <c>CostPairs</c>).
    /// </summary>
    private double? SpikeLimit()
    {
        var counted = Counted;
        if (counted.Count < 3 || counted.Any(w => w.FullSpeedMsPerRequest is null || w.Seconds < 1))
        {
            return null;
        }
        return SpikeRatio * Statistics.Median([.. counted.Select(w => w.FullSpeedMsPerRequest!.Value)]);
    }

    private static bool Above(double? limit, CpuWindow window) => limit is { } l && window.FullSpeedMsPerRequest > l;

    private List<CpuWindow> WithoutSpikes(double? limit) => [.. Counted.Where(w => !Above(limit, w))];

    /// <summary>The windows left out of the full-speed figure as spikes (<see cref="IsSpike"/>).</summary>
    public int SpikedWindows => Counted.Count - WithoutSpikes(SpikeLimit()).Count;

    /// <summary>The app's share alone, in milliseconds per request (over every window).</summary>
    public double? AppMsPerRequest => PerRequest(Windows, w => w.AppCpuSeconds);

    /// <summary>The database's share alone, in ms per request (over the windows it was read in); null when not measured.</summary>
    public double? DatabaseMsPerRequest => DatabaseCpuSeconds is null ? null : PerRequest(Counted, w => w.DatabaseCpuSeconds ?? 0);

    public int BackendsEnded => Windows.Sum(w => w.BackendsEnded);

    private static double? PerRequest(IReadOnlyList<CpuWindow> windows, Func<CpuWindow, double> cpuSeconds) =>
        windows.Sum(w => w.Requests) is > 0 and var requests ? windows.Sum(cpuSeconds) * 1000 / requests : null;
}
