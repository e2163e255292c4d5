using System.Globalization;
using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>
/// The state PostgreSQL was brought to before each block, and the settings it ran with: on perflab's own cluster a
/// CHECKPOINT and the lab's tables and indexes warmed into shared buffers before every block, autovacuum off on those
/// tables and their statistics kept for the whole invocation; on any other server, why it was left as it was.
/// </summary>
public sealed record DatabaseState
{
    /// <summary>Why the database was left as it was before each block (not perflab's own cluster); null when it was reset.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? NotResetBecause { get; init; }

    /// <summary>The server's shared_buffers ("256MB").</summary>
    public string? SharedBuffers { get; init; }

    /// <summary>The server's own autovacuum setting.</summary>
    public bool? Autovacuum { get; init; }

    /// <summary>The lab's tables whose autovacuum was off (reloptions read back).</summary>
    public IReadOnlyList<string> AutovacuumOffTables { get; init; } = [];

    /// <summary>When the lab's tables were last analyzed, as the server remembers it (null: not known).</summary>
    public DateTimeOffset? StatisticsTakenAt { get; init; }

    /// <summary>True when a table had no statistics and was analyzed before the first block.</summary>
    public bool AnalyzedNow { get; init; }

    /// <summary>Blocks preceded by the reset.</summary>
    public int Blocks { get; init; }

    /// <summary>Of those, the blocks whose CHECKPOINT was seen done (the last checkpoint's WAL position moved).</summary>
    public int Checkpoints { get; init; }

    /// <summary>How the buffer cache was warmed: "pg_prewarm" or "a full read of each table".</summary>
    public string? WarmedBy { get; init; }

    /// <summary>Pages of the lab's tables and their indexes.</summary>
    public long? LabPages { get; init; }

    /// <summary>After each warm, the share of those pages in shared buffers: the lowest over the blocks, in percent.</summary>
    public double? CachedPercentLowest { get; init; }

    /// <summary>Resets that failed (the block ran anyway), and the last one's reason.</summary>
    public int Failures { get; init; }

    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? LastFailure { get; init; }

    /// <summary>The provenance's words for it, after the database's own description.</summary>
    public string Describe()
    {
        if (NotResetBecause is { } why)
        {
            return "not reset before the blocks: " + why;
        }
        if (Blocks == 0)
        {
            return string.Create(CultureInfo.InvariantCulture, $"not reset before the blocks: {Failures} resets failed ({LastFailure})");
        }
        var cached = CachedPercentLowest is { } percent
            ? string.Create(CultureInfo.InvariantCulture, $", {percent:0.#} % of their {LabPages:N0} pages in shared buffers at worst")
            : "";
        var statistics = StatisticsTakenAt is { } taken
            ? string.Create(CultureInfo.InvariantCulture, $"statistics of {taken.UtcDateTime:yyyy-MM-dd HH:mm} UTC")
            : "statistics of an unknown date";
        var line = string.Create(CultureInfo.InvariantCulture,
            $"reset before each of {Blocks} blocks: CHECKPOINT ({Checkpoints} seen done), the lab's tables and indexes warmed by "
            + $"{WarmedBy}{cached}; autovacuum off on {AutovacuumOffTables.Count} lab tables (server autovacuum "
            + $"{(Autovacuum == true ? "on" : "off")}), {statistics}{(AnalyzedNow ? " (analyzed now: none existed)" : "")}; "
            + $"shared_buffers {SharedBuffers}");
        return Failures > 0 ? line + string.Create(CultureInfo.InvariantCulture, $"; {Failures} resets failed: {LastFailure}") : line;
    }
}
