using PerfLab.Apps;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;
using PerfLab.Experiments.Running.Databases;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>
/// A variant's SUT started under its run conditions: the database path they ask for opened and measured first, then
/// the SUT through it on the cores they give, checked to have taken effect. A single run does both at once; an
/// alternating block opens every path first and then starts the SUTs together.
/// </summary>
public sealed class ConditionedStarts(RunRequest request, IRunObserver observer)
{
    /// <summary>Starts and checks the app under test of each variant.</summary>
    public SutSession Sessions { get; } = new(request, observer);

    /// <summary>
    /// A variant's SUT started and confirmed under its conditions,
    /// with the database path they ask for; or its failed record.
    /// </summary>
    public sealed record ConditionedStart(VariantDefinition Variant, DatabasePath? Path, IRunningApp? Sut,
        IReadOnlyDictionary<string, string> Info,
        RunRecord? Failed, VariantEffect? Effect = null);

    /// <summary>
    /// A variant as the profile runs it, with the conditions it runs
    /// under and their database path opened; or its failed record.
    /// </summary>
    public sealed record Conditioned(VariantDefinition Variant, RunIdentity Id, Conditions Conditions, DatabasePath? Path,
        RunRecord? Failed)
    {
        public ConditionedStart AsStart() => new(Variant, Path, null, new Dictionary<string, string>(), Failed);
    }

    /// <summary>
    /// Opens the database path and starts the SUT under the variant's conditions
    /// (<see cref="OpenConditionsAsync"/>, <see cref="StartSutAsync"/>).
    /// </summary>
    public async Task<ConditionedStart> StartUnderConditionsAsync(ExperimentDefinition experiment, VariantDefinition variant,
        RunIdentity id,
        int block, CancellationToken ct)
    {
        var conditioned = await OpenConditionsAsync(experiment, variant, id, ct);
        return conditioned.Failed is null ? await StartSutAsync(experiment, conditioned, block, ct) : conditioned.AsStart();
    }

    /// <summary>Opens the database path the variant's conditions ask for (a latency proxy, measured before anything else runs).</summary>
    public async Task<Conditioned> OpenConditionsAsync(ExperimentDefinition experiment, VariantDefinition variant, RunIdentity id,
        CancellationToken ct)
    {
        var conditions = experiment.Conditions.Under(variant.Conditions);
        variant = experiment.Profiles[request.Profile].Apply(variant);
        var (path, pathFailure) = await RunConditions.OpenDatabasePathAsync(conditions, request.ConnectionString, ct);
        if (pathFailure is not null)
        {
            return new Conditioned(variant, id, conditions, null, RunRecordBuilder.Failed(id, pathFailure));
        }
        if (path is not null)
        {
            observer.Report(DescribePath(path.Stats));
        }
        return new Conditioned(variant, id, conditions, path, null);
    }

    /// <summary>
    /// Starts the variant's SUT through its database path on the cores its conditions give, and checks they took effect.
    /// On failure nothing is left running but the path, which the caller disposes.
    /// </summary>
    /// <param name="token">The token its /diagnostics/* and per-request variants ask for (an in-process block's); null: none.</param>
    public async Task<ConditionedStart> StartSutAsync(ExperimentDefinition experiment, Conditioned conditioned, int block,
        CancellationToken ct, string? token = null)
    {
        var (variant, id, conditions, path, _) = conditioned;
        var overrides = new SutOverrides(path?.ConnectionString, RunConditions.CpuSet(conditions, request.Layout), token);
        var start = await Sessions.StartAsync(experiment, variant, $"{experiment.Name}-{variant.Name}-{block}.log", ct, overrides);
        if ((start.Failure ?? RunConditions.CoresNotInEffect(conditions, start.Info, start.Sut?.TailOfLog())) is { } failure)
        {
            if (start.Sut is not null)
            {
                await start.Sut.DisposeAsync();
            }
            return new ConditionedStart(variant, path, null, start.Info,
                RunRecordBuilder.WithEffect(RunRecordBuilder.Failed(id, failure), start.Effect) with { DatabasePath = path?.Stats },
                start.Effect);
        }
        return new ConditionedStart(variant, path, start.Sut, start.Info, null, start.Effect);
    }

    private static string DescribePath(DatabasePathStats stats) => string.Create(System.Globalization.CultureInfo.InvariantCulture,
        $"database path: {stats.ConfiguredRttMs:0.###} ms RTT on the proxy; SELECT 1 through it {stats.MeasuredRttMs:0.000} ms, "
            + $"directly {stats.DirectRttMs:0.000} ms (median of {stats.Queries})");
}
