using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>
/// Where a run's load is sent from: the load engine in this process (<see cref="Here"/>), or the hosts file's generators,
/// each sending its share and their histograms merged (<see cref="Generators"/>). Either way a run gets one
/// <see cref="LoadResult"/> of the same shape, so everything computed from it is computed alike.
/// </summary>
public abstract class LoadSource
{
    public static LoadSource Here { get; } = new InProcess();

    /// <summary>Each generator's placement, for the provenance.</summary>
    public abstract IReadOnlyList<Placement> Hosts { get; }

    /// <summary>
    /// Sends one load: the result is the whole load's, and <see cref="RemoteLoadResult.Generators"/> holds each
    /// generator's own figures when there are several places it came from (none from this process alone). A generator
    /// that dies marks the result incomplete, its host named, and keeps what the others measured.
    /// </summary>
    public abstract Task<RemoteLoadResult> SendAsync(LoadPlan plan, CancellationToken ct);

    private sealed class InProcess : LoadSource
    {
        public override IReadOnlyList<Placement> Hosts { get; } = [new Here("load")];

        public override async Task<RemoteLoadResult> SendAsync(LoadPlan plan, CancellationToken ct) =>
            new(await LoadEngine.RunAsync(plan, progress: null, ct), []);
    }
}

/// <summary>
/// The hosts file's generators (this machine among them when the file says "local"), checked and holding perflab.
/// Every generator's warm-up is the plan's whole warm-up, fixed, so their measured windows open together: a condition
/// the target must meet first (its JIT gone quiet) is read on this machine and cannot be sent; for an app on another
/// host it is never met here anyway, and such a warm-up runs to the same cap.
/// </summary>
internal sealed class LoadFromHosts(Generators generators, IReadOnlyList<Placement> hosts, IProgress<string>? say = null) : LoadSource
{
    public override IReadOnlyList<Placement> Hosts => hosts;

    /// <summary>
    /// The feeds' values are fetched here once and sent inline: every generator then draws from the same list, and the app
    /// is asked once, not once per generator.
    /// </summary>
    public override async Task<RemoteLoadResult> SendAsync(LoadPlan plan, CancellationToken ct)
    {
        var fetched = await FeedLoader.WithValuesFetchedAsync(plan, ct).ConfigureAwait(false);
        return await generators.RunAsync(fetched with { WarmupUntilSteady = false, TargetSettled = null }, say, ct)
            .ConfigureAwait(false);
    }
}
