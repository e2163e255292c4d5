namespace PerfLab.Load.Models;

/// <summary>Drives one scenario's requests until its plan is done or its stop token fires.</summary>
internal interface ILoadModelRunner
{
    /// <summary>Whether the engine starts measuring at the end of the plan's warm-up (burst models decide for themselves).</summary>
    bool UsesTimedWarmup { get; }

    Task RunAsync(ScenarioRun run, LoadPlan plan);

    static ILoadModelRunner For(LoadModel model) => model switch
    {
        ClosedModel => new ClosedRunner(),
        OpenModel => new OpenRunner(),
        BurstModel => new BurstRunner(),
        RampModel => new RampRunner(),
        _ => throw new ArgumentOutOfRangeException(nameof(model), model, "unknown load model"),
    };
}
