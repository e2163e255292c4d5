using System.Globalization;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Databases;

/// <summary>
/// The run's PostgreSQL brought to the same state before every block, so that what lasts an invocation (the buffer cache
/// after a restart or another experiment, an autovacuum or analyze falling due, a checkpoint owed) cannot favour one
/// invocation's blocks: settled once (<see cref="LabDatabase"/>), then reset before each block
/// (<see cref="LabDatabaseReset"/>). What was done becomes the provenance's <see cref="DatabaseState"/>. A failed reset is
/// counted and the block runs anyway: a database that went down is the runs' to report.
/// </summary>
/// <param name="connectionString">The built-in SUT's database; empty when no experiment uses one.</param>
/// <param name="reset">Who settles and resets it: its role on a db host; null: this process, from the connection string.</param>
internal sealed class DatabaseBeforeBlocks(string connectionString, IProgress<string> progress, ILabReset? reset = null)
{
    private readonly ILabReset _reset = reset ?? new LocalLabReset(connectionString);
    private LabDatabaseSettings? _settings;
    private string? _notReset;
    private LabResetResult? _last;
    private int _blocks;
    private int _checkpoints;
    private double? _lowestCached;
    private int _failures;
    private string? _lastFailure;

    /// <summary>Before a block: the settling the first time, then the reset; never throws but for Ctrl+C.</summary>
    public async Task ResetAsync(CancellationToken ct)
    {
        if (connectionString.Length == 0 || _notReset is not null || ct.IsCancellationRequested)
        {
            return;
        }
        try
        {
            if (_settings is null)
            {
                (_settings, _notReset) = await _reset.SettleAsync(ct);
                if (_settings is null)
                {
                    progress.Report("PostgreSQL not reset before the blocks: " + _notReset);
                    return;
                }
            }
            _last = await _reset.ResetAsync(_settings, ct);
            _blocks++;
            _checkpoints += _last.Checkpointed ? 1 : 0;
            _lowestCached = _last.CachedPercent is { } cached ? Math.Min(cached, _lowestCached ?? cached) : _lowestCached;
            if (_blocks == 1)
            {
                var share = _last.CachedPercent is { } p
                    ? string.Create(CultureInfo.InvariantCulture, $"{p:0.#} %")
                    : "a share not measured";
                progress.Report(string.Create(CultureInfo.InvariantCulture,
                    $"PostgreSQL reset before each block: CHECKPOINT, warmed by {_last.WarmedBy} ({share} of the lab's pages cached), "
                        + $"autovacuum off on {_settings.AutovacuumOffTables.Count} lab tables, shared_buffers {_settings.SharedBuffers}"));
            }
        }
        catch (PerfLabException ex)
        {
            _failures++;
            _lastFailure = ex.Message;
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            // Ctrl+C: the block's loop sees it and ends the run.
        }
    }

    /// <summary>For the provenance; null when no experiment used the database.</summary>
    public DatabaseState? State => connectionString.Length == 0 ? null
        : _notReset is not null ? new DatabaseState { NotResetBecause = _notReset }
        : new DatabaseState
        {
            SharedBuffers = _settings?.SharedBuffers,
            Autovacuum = _settings?.AutovacuumServer,
            AutovacuumOffTables = _settings?.AutovacuumOffTables ?? [],
            StatisticsTakenAt = _settings?.StatisticsTakenAt,
            AnalyzedNow = _settings?.AnalyzedNow ?? false,
            Blocks = _blocks,
            Checkpoints = _checkpoints,
            WarmedBy = _last?.WarmedBy,
            LabPages = _last?.Pages,
            CachedPercentLowest = _lowestCached,
            Failures = _failures,
            LastFailure = _lastFailure,
        };
}
