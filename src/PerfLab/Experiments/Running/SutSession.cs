using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Sut;

namespace PerfLab.Experiments.Running;

/// <summary>A started SUT whose /info confirmed the variant, or why there is none.</summary>
public sealed record SutStart(SutProcess? Sut, IReadOnlyDictionary<string, string> Info, RunFailure? Failure);

/// <summary>What a run's conditions change in the SUT's launch: the database reached through a proxy, fewer CPUs.</summary>
public sealed record SutOverrides(string? ConnectionString, string? CpuSet);

/// <summary>Starts the SUT for a variant and checks through /info that the variant really took effect.</summary>
public sealed class SutSession(RunRequest request, IRunObserver observer)
{
    public async Task<SutStart> StartAsync(VariantDefinition variant, string logName, CancellationToken ct, SutOverrides? overrides = null)
    {
        var none = new Dictionary<string, string>();
        var launch = Launch(variant, logName, overrides);
        SutProcess sut;
        try
        {
            sut = await SutProcess.StartAsync(launch, progress: new InlineProgress<string>(observer.Message), ct: ct);
        }
        catch (PerfLabException ex)
        {
            return new SutStart(null, none, new RunFailure(FailureKind.SutDidNotStart, $"the SUT did not start: {FirstLine(ex.Message)}", RestOf(ex.Message)));
        }
        catch (OperationCanceledException)
        {
            return new SutStart(null, none, new RunFailure(FailureKind.Interrupted, "interrupted before the SUT was ready"));
        }

        var (info, failure) = await CheckAsync(sut, launch, ct);
        if (failure is not null)
        {
            await sut.DisposeAsync();
            return new SutStart(null, failure.Info ?? none, failure);
        }
        return new SutStart(sut, info!, null);
    }

    private static async Task<(IReadOnlyDictionary<string, string>? Info, RunFailure? Failure)> CheckAsync(SutProcess sut, SutLaunch launch, CancellationToken ct)
    {
        SutInfo info;
        try
        {
            info = await sut.GetInfoAsync(ct);
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            return (null, new RunFailure(FailureKind.Interrupted, "interrupted before the SUT answered /info"));
        }
        catch (Exception ex) when (ex is HttpRequestException or TaskCanceledException or System.Text.Json.JsonException or PerfLabException)
        {
            return (null, new RunFailure(FailureKind.SutDidNotAnswerInfo, $"the SUT did not answer /info: {ex.Message}", sut.TailOfLog()));
        }
        var map = RunRecordBuilder.Flatten(info);
        var mismatches = VariantCheck.Mismatches(launch, info);
        return mismatches.Count > 0
            ? (map, new RunFailure(FailureKind.VariantNotInEffect, "the variant did not take effect: " + string.Join("; ", mismatches), sut.TailOfLog(), map))
            : (map, null);
    }

    /// <summary>
    /// One short, unmeasured run before the first measured one: the first SUT process of an invocation otherwise meets
    /// cold file, database and CPU caches that no later run meets (measured here: the first run of an A/A pair 40 %
    /// slower), a bias against whichever variant runs first.
    /// </summary>
    public async Task PrimeAsync(ExperimentDefinition experiment, VariantDefinition variant, CancellationToken ct)
    {
        if (experiment.Scenarios.Any(s => s.Model == ScenarioKind.Upload))
        {
            return;
        }
        observer.Message("priming: one unmeasured run to warm caches...");
        try
        {
            await using var sut = await SutProcess.StartAsync(Launch(variant, "priming.log"), progress: new InlineProgress<string>(observer.Message), ct: ct);
            var primingProfile = new ProfileDefinition(TimeSpan.Zero, TimeSpan.FromSeconds(3), 1, 1, null);
            await LoadEngine.RunAsync(ScenarioPlans.BuildPlan(experiment, variant, primingProfile, sut.BaseAddress), progress: null, ct);
        }
        catch (PerfLabException ex)
        {
            // The measured runs will meet the same problem and report it with its log; priming only warms.
            observer.Message($"priming failed: {FirstLine(ex.Message)}");
        }
        catch (OperationCanceledException)
        {
        }
    }

    private SutLaunch Launch(VariantDefinition variant, string logName, SutOverrides? overrides = null) =>
        new(variant.Settings, variant.Env, overrides?.ConnectionString ?? request.ConnectionString, variant.Framework,
            CpuSet: overrides?.CpuSet ?? request.Layout.Sut, LogFile: Path.Combine(request.LogFolder, logName));

    private static string FirstLine(string text) => text.Split('\n')[0].Trim();

    private static string? RestOf(string text) => text.Contains('\n') ? text[(text.IndexOf('\n') + 1)..] : null;
}
