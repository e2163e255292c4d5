namespace PerfLab.Database;

/// <summary>One column perflab loads: its name in schema.sql and how a row's value is written to a <see cref="RowSink"/>.</summary>
internal sealed record ColumnDescriptor<TRow>(string Name, Func<RowSink, TRow, CancellationToken, ValueTask> Write);

/// <summary>
/// A table perflab seeds, its loaded columns once and in schema.sql's order (computed columns are left to PostgreSQL).
/// The COPY command, the row writer, the checksums and the row counts all read it.
/// </summary>
internal sealed record TableDescriptor<TRow>(string Schema, string Name, IReadOnlyList<string> Key,
    IReadOnlyList<ColumnDescriptor<TRow>> Columns) : ITable
{
    public string QualifiedName => PostgresConnections.QuoteIdentifier(Schema) + "." + PostgresConnections.QuoteIdentifier(Name);

    public string DisplayName => Schema + "." + Name;

    public IEnumerable<string> ColumnNames => Columns.Select(c => c.Name);

    public string CopyCommand =>
        $"COPY {QualifiedName} ({string.Join(",", Columns.Select(c => PostgresConnections.QuoteIdentifier(c.Name)))}) " +
        "FROM STDIN (FORMAT BINARY)";

    public async ValueTask WriteRowAsync(RowSink sink, TRow row, CancellationToken ct)
    {
        await sink.StartRowAsync(ct);
        foreach (var column in Columns)
        {
            await column.Write(sink, row, ct);
        }
    }
}

/// <summary>What every seeded table offers without its row type.</summary>
internal interface ITable
{
    string Schema { get; }
    string Name { get; }
    string QualifiedName { get; }
    string DisplayName { get; }
    /// <summary>The primary key's columns, in order.</summary>
    IReadOnlyList<string> Key { get; }
    IEnumerable<string> ColumnNames { get; }
}
