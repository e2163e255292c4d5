using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>
/// Generator <see cref="Index"/> of <see cref="Count"/>'s part of a load plan, so that the generators together apply
/// exactly the plan: closed users divided (the first ones take the remainder), open model at R/N each with generator i
/// starting i/R late, so its k-th request leaves at t0 + (kN + i)/R and the union is the single schedule at R.
/// </summary>
public sealed record LoadShare(int Index, int Count)
{
    public LoadPlan Apply(LoadPlan plan) =>
        plan with { Scenarios = [.. plan.Scenarios.Select(s => s with { Model = Apply(s.Name, s.Model), MaxRequests = Split(s.MaxRequests) })] };

    /// <summary>How long after the common start this generator begins: i/R for the open model's interleaved schedule, else nothing.</summary>
    public TimeSpan Phase(LoadPlan plan) =>
        plan.Scenarios.Select(s => s.Model).OfType<OpenModel>().FirstOrDefault() is { } open
            ? TimeSpan.FromSeconds(Index / open.Rate)
            : TimeSpan.Zero;

    private LoadModel Apply(string scenario, LoadModel model) => model switch
    {
        ClosedModel c => new ClosedModel(Part(scenario, c.Users, "users")),
        OpenModel o => new OpenModel(o.Rate / Count, Math.Max(1, (int)Math.Ceiling(o.MaxInFlight / (double)Count))),
        BurstModel b => b with { BatchSize = Part(scenario, b.BatchSize, "burst size") },
        RampModel r => r with { StartUsers = Part(scenario, r.StartUsers, "ramp start"), Step = Math.Max(1, Part(scenario, r.Step, "ramp step")), MaxUsers = Part(scenario, r.MaxUsers, "ramp max") },
        _ => throw new PerfLabException($"{scenario}: the {model.Kind} model cannot be shared between generators.", ExitCode.Usage),
    };

    /// <summary>This generator's part of <paramref name="total"/> whole things; each generator needs at least one.</summary>
    private int Part(string scenario, int total, string what)
    {
        if (total < Count)
        {
            throw new PerfLabException($"{scenario}: {what} {total} cannot be divided between {Count} generators: give at least {Count}.", ExitCode.Usage);
        }
        return (total / Count) + (Index < total % Count ? 1 : 0);
    }

    private long? Split(long? total) => total is { } t ? (t / Count) + (Index < t % Count ? 1 : 0) : null;
}
