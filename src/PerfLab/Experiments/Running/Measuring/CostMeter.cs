using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// The CPU an app costs per request, read from the kernel at the very edges of each measured window (the load engine
/// calls it as the window starts and ends): the app's process CPU clock, and the CPU clock of the PostgreSQL backends
/// that may serve it, wherever they run (<see cref="IBackendsCpu"/>: read here by pid, or by the db role on its host);
/// after the window, those serving the app are picked out. CPU time is not charged while a neighbour holds the core, so
/// this figure moves much less than throughput on a shared machine; it does move when the core itself runs slower, so
/// for an app on this machine each window also records how much slower the cores ran in it (<see cref="CoreSpeed"/>).
/// </summary>
/// <param name="appCpu">Reads the app's CPU clock (its process here, or its role on its host).</param>
/// <param name="database">The backends of the PostgreSQL server it uses; null: the app's own CPU only.</param>
/// <param name="speed">This machine's cores' speed, when the app and its database run on it; null: not sampled.</param>
public sealed class CostMeter(Func<long?> appCpu, IBackendsCpu? database, CoreSpeed? speed = null) : IWindowProbe
{
    /// <summary>An app on this machine, its database (when given) on this machine too.</summary>
    public CostMeter(int appPid, LocalPostgres? database)
        : this(() => CpuClock.ProcessNanoseconds(appPid), database is null ? null : new LocalBackendsCpu(database, appPid))
    {
    }

    private Snapshot? _start;
    private Snapshot? _end;
    private Snapshot? _previousEnd;

    public void WindowStarted() => _start = Read();

    public void WindowEnded() => _end = Read();

    /// <summary>
    /// The window just measured, its <paramref name="requests"/> given by the load's count; null when no window was
    /// measured or the app was gone at one of its edges. Call it right after the load run: the backends are matched
    /// to the app by the connections they hold now. The database part is null when its backends could not be read
    /// at an edge.
    /// </summary>
    public CpuWindow? Take(long requests)
    {
        var (start, end) = (_start, _end);
        (_start, _end) = (null, null);
        return start is null || end is null ? null : Between(start, end, start, requests);
    }

    /// <summary>
    /// A window of short alternation: its CPU and <paramref name="requests"/> counted from the end of this app's
    /// previous window (from its own start the first time), its seconds and the cores' speed from its own edges. The
    /// app is stopped between its windows, so what ran there (a backend finishing the app's query, the last responses
    /// read) is its own and goes to its next window; so the windows add up to the whole stretch.
    /// </summary>
    public CpuWindow? TakeChained(long requests)
    {
        var (start, end, previous) = (_start, _end, _previousEnd);
        (_start, _end) = (null, null);
        _previousEnd = end;
        return start is null || end is null ? null : Between(previous ?? start, end, start, requests);
    }

    private CpuWindow? Between(Snapshot from, Snapshot to, Snapshot opened, long requests)
    {
        if (from.AppNs is not { } appFrom || to.AppNs is not { } appTo || to.Timestamp <= opened.Timestamp)
        {
            return null;
        }
        var seconds = Stopwatch.GetElapsedTime(opened.Timestamp, to.Timestamp).TotalSeconds;
        double? db = null;
        var ended = 0;
        if (database is not null && from.Backends is { } before && to.Backends is { } after)
        {
            var ours = database.Serving(after.Keys);
            // A backend born in the window counts from zero: all it ran, it ran inside the window.
            db = ours.Sum(pid => after[pid] - before.GetValueOrDefault(pid)) / 1e9;
            ended = before.Keys.Count(pid => !after.ContainsKey(pid));
        }
        var slowdown = speed is not null && opened.Speed is { } speedFrom && to.Speed is { } speedTo
            ? speed.SlowdownBetween(speedFrom, speedTo) : null;
        return new CpuWindow(seconds, requests, (appTo - appFrom) / 1e9, db, ended, slowdown);
    }

    private Snapshot Read() => new(Stopwatch.GetTimestamp(), appCpu(), database?.Read(), speed?.Read());

    private sealed record Snapshot(long Timestamp, long? AppNs, IReadOnlyDictionary<int, long>? Backends, CoreSpeed.Reading? Speed);
}
