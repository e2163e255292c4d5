namespace PerfLab.History;

/// <summary>
/// The history's tables, as numbered migrations: a store at version N gets N+1.. applied in one transaction, and a
/// store from a newer perflab (a version above <see cref="Current"/>) is refused untouched. A migration is new SQL
/// appended here, never an edit of one already shipped. "{identity}" is the backend's identity column.
/// </summary>
public static class HistorySchema
{
    /// <summary>The value of history_meta's "format" row: what tells a perflab history from any other database.</summary>
    public const string Format = "perflab-history";

    public static int Current => Migrations.Count;

    /// <summary>Migration i (from 0) brings a store from version i to i + 1.</summary>
    public static readonly IReadOnlyList<IReadOnlyList<string>> Migrations =
    [
        [
            """
            CREATE TABLE history_runs (
                id {identity},
                run_key TEXT NOT NULL UNIQUE,
                started_at TEXT NOT NULL,
                commit_id TEXT NOT NULL,
                machine TEXT NOT NULL,
                runtime TEXT NOT NULL,
                profile TEXT NOT NULL,
                noise TEXT,
                source TEXT NOT NULL,
                added_at TEXT NOT NULL)
            """,
            """
            CREATE TABLE history_points (
                run_id BIGINT NOT NULL REFERENCES history_runs (id),
                experiment TEXT NOT NULL,
                variant TEXT NOT NULL,
                scenario TEXT NOT NULL,
                metric TEXT NOT NULL,
                median DOUBLE PRECISION NOT NULL,
                low DOUBLE PRECISION,
                high DOUBLE PRECISION,
                samples INTEGER NOT NULL,
                noise_floor DOUBLE PRECISION,
                verdict TEXT,
                PRIMARY KEY (run_id, experiment, variant, scenario, metric))
            """,
            "CREATE INDEX history_points_series ON history_points (experiment, metric, scenario)",
            "CREATE INDEX history_runs_started ON history_runs (started_at)",
        ],
    ];

    /// <summary>Created before any migration: what the store is and which version its tables are at.</summary>
    public const string MetaTable = "CREATE TABLE history_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)";
}
