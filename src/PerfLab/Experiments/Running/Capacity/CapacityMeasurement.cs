using System.Globalization;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Experiments.Running.Capacity;

/// <summary>
/// A capacity experiment's measurement of one variant: the capacity search (<see cref="CapacitySearch"/>) against its
/// app, the profile's warm-up and duration being each step's, with the runtime's counters read throughout. The run's
/// figure is the capacity found (<see cref="RunRecord.Capacity"/>, every step kept); its scenario figures and counters
/// are those of the step that held at that rate (or of the last step, when none held), so the report's tables show the
/// app at its capacity, and so is its cost: the CPU per request of the app and of the database backends serving it, over
/// that step's window, metered as a plain run's (<see cref="LoadMeasurement.CostMeterAsync"/>: on the db host when there is one).
/// </summary>
/// <param name="recorder">The load measurement the run's record and cost meter come from, made from the same request as a
/// plain run's.</param>
public sealed class CapacityMeasurement(ExperimentDefinition experiment, VariantDefinition variant, ProfileDefinition profile,
    LoadMeasurement recorder) : IMeasurement
{
    /// <summary>Where the record, the database check and the cost meter come from.</summary>
    public LoadMeasurement Recorder => recorder;

    /// <summary>Where each step and the answer are told as they come.</summary>
    public IProgress<string>? Progress { get; init; }

    public async Task<RunRecord> MeasureAsync(IRunningApp sut, RunIdentity id, IReadOnlyDictionary<string, string> info,
        CancellationToken ct)
    {
        var capacity = experiment.Capacity ?? throw new InvalidOperationException($"{experiment.Name} has no capacity block");
        var settings = new CapacityStepSettings(profile.Duration, profile.Warmup);
        var scenario = ScenarioPlans.BuildPlan(experiment, variant, profile, sut).Scenarios[0];
        try
        {
            scenario = await WithFeedValuesAsync(scenario, ct);
        }
        catch (Exception ex) when (ex is HttpRequestException or TaskCanceledException or System.Text.Json.JsonException)
        {
            return RunRecordBuilder.Failed(id, new RunFailure(FailureKind.LoadFailed,
                $"the capacity search could not fetch its feed {scenario.Feed.ValuesUrl}: {ex.Message}", sut.TailOfLog(), info));
        }
        var meter = await recorder.CostMeterAsync(sut, ct);
        var probe = new CapacityProbe(scenario, capacity.Slo, settings) {
            Probe = meter,
            AllowRemote = !sut.BaseAddress.IsLoopback,
            Load = recorder.Load,
        };
        var loads = new Dictionary<int, (LoadResult Load, CpuWindow? Cost)>();
        async Task<CapacityStep> Step(int index, string phase, double rate, CancellationToken token)
        {
            var (step, load) = await probe.RunAsync(index, phase, rate, token);
            // Taken at once: the backends serving the app are matched by the connections it holds now.
            loads[index] = (load, meter.Take(load.Scenarios.Sum(s => s.Requests)));
            return step;
        }

        var ((result, failure), recording) = await CounterSession.WithCountersAsync(sut, async () =>
        {
            try
            {
                var found = await CapacitySearch.RunAsync(scenario.Feed.UrlTemplate, capacity.Slo, capacity.Range, settings, Step,
                    step => Progress?.Report(Describe(step, capacity.Slo)), ct);
                return ((CapacityResult?)found, (string?)null);
            }
            catch (PerfLabException ex)
            {
                return ((CapacityResult?)null, (string?)ex.Message);
            }
        }, ct);
        if (result is null || loads.Count == 0)
        {
            return RunRecordBuilder.Failed(id, new RunFailure(FailureKind.LoadFailed,
                $"the capacity search could not run: {failure ?? "no step ran"}", sut.TailOfLog(), info));
        }
        Progress?.Report($"{variant.Name}: capacity {result.Summary}");
        var shown = result.StepAtCapacity() is { } held ? loads[held.Index] : loads[result.Steps[^1].Index];
        var record = LoadMeasurement.WithCost(await recorder.RecordAsync(sut, id, info, (shown.Load, recording), ct), [shown.Cost])
            with { Capacity = result };
        return result.Outcome == CapacityOutcome.Incomplete && record.Status == RunStatus.Ok
            ? RunRecordBuilder.MarkFailed(record, FailureKind.LoadStoppedEarly, $"the capacity search stopped early: {result.Summary}")
            : record;
    }

    /// <summary>The time a feed's values may take: the app's first answer to them may wait for its start-up work.</summary>
    private static readonly TimeSpan FeedTimeout = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The feed's values fetched once, inline: every step would fetch them again, under the step's request timeout (a
    /// few seconds, from the SLO), which a cold app's first answer to a large list can outlast.
    /// </summary>
    private static async Task<ScenarioPlan> WithFeedValuesAsync(ScenarioPlan scenario, CancellationToken ct)
    {
        if (scenario.Feed.ValuesUrl is not { } url)
        {
            return scenario;
        }
        using var client = new HttpClient { Timeout = FeedTimeout };
        using var json = System.Text.Json.JsonDocument.Parse(await client.GetStringAsync(url, ct));
        var values = json.RootElement.EnumerateArray()
            .Select(v => v.ValueKind == System.Text.Json.JsonValueKind.String ? v.GetString()! : v.GetRawText()).ToList();
        return scenario with { Feed = scenario.Feed with { ValuesUrl = null, Values = values } };
    }

    /// <summary>"sync: step 3 at 200 RPS: sent 199.6, completed 192.3, p99 407.7 ms: breaks (latency climbed ...)".</summary>
    private string Describe(CapacityStep step, CapacitySlo slo) => string.Create(CultureInfo.InvariantCulture,
        $"{variant.Name}: {step.Phase} {step.Index} at {step.TargetRps:0.#} RPS: ")
        + string.Create(CultureInfo.InvariantCulture, $"sent {step.SentRps:0.#}, completed {step.CompletedRps:0.#}, ")
        + string.Create(CultureInfo.InvariantCulture, $"{slo.Latency.Metric} {step.LatencyMs:0.#} ms: ")
        + (step.Holds ? "holds" : "breaks (" + step.Reason + ")");
}
