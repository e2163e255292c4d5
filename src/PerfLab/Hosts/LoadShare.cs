using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>
/// Generator <see cref="Index"/> of <see cref="Count"/>'s part of a load plan, so that the generators together apply
/// exactly the plan: each scenario's model divides itself (<see cref="LoadModel.ShareOf"/>), request caps are divided,
/// and the generator starts as late as its models ask (<see cref="LoadModel.ShareDelay"/>).
/// </summary>
public sealed record LoadShare(int Index, int Count)
{
    public LoadPlan Apply(LoadPlan plan) =>
        plan with
        {
            Scenarios = [.. plan.Scenarios.Select(s => s with { Model = ShareOf(s.Name, s.Model), MaxRequests = Split(s.MaxRequests) })],
        };

    /// <summary>
    /// How long after the common start this generator begins: the first delay a scenario's model asks (the open model's
    /// i/R), else nothing.
    /// </summary>
    public TimeSpan Phase(LoadPlan plan) =>
        plan.Scenarios.Select(s => s.Model.ShareDelay(Index, Count)).FirstOrDefault(d => d > TimeSpan.Zero);

    private LoadModel ShareOf(string scenario, LoadModel model)
    {
        try
        {
            return model.ShareOf(Index, Count);
        }
        catch (PerfLabException ex)
        {
            throw new PerfLabException($"{scenario}: {ex.Message}", ex.ExitCode, ex);
        }
    }

    private long? Split(long? total) => total is { } t ? (t / Count) + (Index < t % Count ? 1 : 0) : null;
}
