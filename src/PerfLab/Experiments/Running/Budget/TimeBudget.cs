using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Experiments.Running.Budget;

/// <summary>
/// `--budget`: the time a whole invocation may take, counted from when it began (<see cref="Invocation.StartedAt"/>, the
/// ./perflab script's build included), 20 minutes unless asked. One value from the command line to the block loop: the
/// default is written here only, and a child invocation of `--invocations` receives its share as this value's own two
/// fields (<see cref="ForChild"/>: its start and its total, in milliseconds), never as an option's text to parse again.
/// </summary>
public sealed record TimeBudget(TimeSpan Total, DateTimeOffset Started)
{
    public static readonly TimeSpan DefaultTotal = TimeSpan.FromMinutes(20);

    /// <summary>
    /// The budget asked on the command line; without one, the share a parent invocation handed this process, else the
    /// default; counted from this invocation's start.
    /// </summary>
    public static TimeBudget Asked(TimeSpan? total) =>
        new(total ?? FromParent(Environment.GetEnvironmentVariable(PerfLabSettings.InvocationBudget)) ?? DefaultTotal,
            Invocation.StartedAt);

    public TimeSpan Spent() => DateTimeOffset.UtcNow - Started;

    public TimeSpan Left() => Total - Spent();

    /// <summary>A child invocation's share, starting now, as the environment it is started with.</summary>
    public static IReadOnlyDictionary<string, string> ForChild(TimeSpan share) => new Dictionary<string, string>
    {
        [PerfLabSettings.InvokedAt] = DateTimeOffset.Now.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture),
        [PerfLabSettings.InvocationBudget] = ((long)share.TotalMilliseconds).ToString(CultureInfo.InvariantCulture),
    };

    /// <summary>The share a parent handed, when the variable holds a positive whole number of milliseconds.</summary>
    public static TimeSpan? FromParent(string? milliseconds) =>
        long.TryParse(milliseconds, NumberStyles.None, CultureInfo.InvariantCulture, out var ms) && ms > 0
            ? TimeSpan.FromMilliseconds(ms)
            : null;
}
