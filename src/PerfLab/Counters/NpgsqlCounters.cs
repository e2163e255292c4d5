using PerfLab.Common;

namespace PerfLab.Counters;

/// <summary>
/// The counters of the database client, read from the meter Npgsql publishes through System.Diagnostics.Metrics.
/// Npgsql 10 names its instruments after OpenTelemetry's database conventions (db.client.operation.*,
/// db.client.connection.*); Npgsql 8 and 9, which the net8.0/net9.0 builds of the SUT restore, used the older
/// db.client.commands.* / db.client.connections.* names and tag the connection state "state". Each counter reads both.
/// </summary>
internal static class NpgsqlCounters
{
    private const string Meter = CounterCatalog.NpgsqlMeter;
    private const string Source = CounterCatalog.NpgsqlMeter;
    private const string StateTag = "db.client.connection.state";
    private const string OlderStateTag = "state";

    public static readonly IReadOnlyList<CounterDefinition> All =
    [
        // The command-duration histogram's count and sum per interval (.NET 8+ publishes both with the quantiles).
        new(CounterNames.NpgsqlCommands, "Commands Completed", "count", CounterKind.Rate, Source,
            Histogram("db.client.operation.duration", HistogramPart.Count, 1),
            Histogram("db.client.commands.duration", HistogramPart.Count, 1)),
        new(CounterNames.NpgsqlCommandTime, "Command Time", "ms", CounterKind.Rate, Source,
            Histogram("db.client.operation.duration", HistogramPart.Sum, 1000),
            Histogram("db.client.commands.duration", HistogramPart.Sum, 1000)),
        // Synchronous up-down counters have no series before their first change: until then they are zero.
        new(CounterNames.NpgsqlCommandsExecuting, "Commands Executing", "count", CounterKind.Gauge, Source,
            Level("db.client.operation.npgsql.executing"), Level("db.client.commands.executing")),
        new("npgsql-commands-failed", "Commands Failed", "count", CounterKind.Rate, Source,
            new(Meter, "db.client.operation.failed", UseRate: true, ZeroUntilFirstMeasurement: true),
            new(Meter, "db.client.commands.failed", UseRate: true, ZeroUntilFirstMeasurement: true)),
        new(CounterNames.NpgsqlConnectionsBusy, "Connections Busy", "count", CounterKind.Gauge, Source,
            new(Meter, "db.client.connection.count", UseRate: false, TagKey: StateTag, TagValues: ["used"]),
            new(Meter, "db.client.connections.usage", UseRate: false, TagKey: OlderStateTag, TagValues: ["used"])),
        new(CounterNames.NpgsqlConnectionsIdle, "Connections Idle", "count", CounterKind.Gauge, Source,
            new(Meter, "db.client.connection.count", UseRate: false, TagKey: StateTag, TagValues: ["idle"]),
            new(Meter, "db.client.connections.usage", UseRate: false, TagKey: OlderStateTag, TagValues: ["idle"])),
        new("npgsql-connections-max", "Connections Max", "count", CounterKind.Gauge, Source,
            new(Meter, "db.client.connection.max", UseRate: false), new(Meter, "db.client.connections.max", UseRate: false)),
        new(CounterNames.NpgsqlPendingRequests, "Pending Connection Requests", "count", CounterKind.Gauge, Source,
            Level("db.client.connection.npgsql.pending_requests"), Level("db.client.connections.pending_requests")),
    ];

    private static MeterReading Histogram(string instrument, HistogramPart part, double scale) =>
        new(Meter, instrument, UseRate: true, Scale: scale, Histogram: part);

    private static MeterReading Level(string instrument) =>
        new(Meter, instrument, UseRate: false, ZeroUntilFirstMeasurement: true);
}
