namespace PerfLab.Load.Models;

/// <summary>The figures only one load model has: the open model's schedule, the burst's batches, the ramp's steps.</summary>
internal sealed record ModelSummary(OpenSchedule? Open = null, BurstStats? Burst = null, IReadOnlyList<RampStep>? Ramp = null)
{
    public static readonly ModelSummary None = new();
}

/// <summary>Drives one scenario's requests until its plan is done or its stop token fires.</summary>
internal interface ILoadModelRunner
{
    /// <summary>Whether the engine starts measuring at the end of the plan's warm-up (burst models decide for themselves).</summary>
    bool UsesTimedWarmup { get; }

    Task RunAsync(ScenarioRun run, LoadPlan plan);

    /// <summary>How its requests travel when the runner sends them itself (uploads); null: the scenario's transport.</summary>
    string? Transport => null;

    /// <summary>
    /// What this model adds to a scenario's result (schedule, batches
    /// or steps); a shortfall goes to <paramref name="reasons"/>.
    /// </summary>
    ModelSummary Summarize(ScenarioRun run, RecordingSnapshot measured, double seconds, bool stoppedEarly, List<string> reasons) =>
        ModelSummary.None;
}
