using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;
using Npgsql;
using NpgsqlTypes;

namespace PerfLab.Database;

// Writes each value to a binary COPY (when there is one) and feeds the same value to a SHA-256, so the checksum stored
// in perflab.schema_info describes exactly the bytes that were loaded. Without an importer it only hashes, which lets
// tests compute the expected checksum without a database.
internal sealed class RowSink(IncrementalHash hash, NpgsqlBinaryImporter? importer = null)
{
    private const byte NullTag = 0;
    private const byte ValueTag = 1;
    private const byte RowTag = 0xFF;

    public NpgsqlBinaryImporter? Importer { get; set; } = importer;

    public async ValueTask StartRowAsync(CancellationToken ct)
    {
        hash.AppendData([RowTag]);
        if (Importer is not null)
        {
            await Importer.StartRowAsync(ct);
        }
    }

    public ValueTask WriteAsync(int value, CancellationToken ct)
    {
        Span<byte> buffer = stackalloc byte[5];
        buffer[0] = ValueTag;
        BinaryPrimitives.WriteInt32LittleEndian(buffer[1..], value);
        hash.AppendData(buffer);
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteAsync(value, NpgsqlDbType.Integer, ct));
    }

    public ValueTask WriteAsync(int? value, CancellationToken ct) =>
        value is { } v ? WriteAsync(v, ct) : WriteNullAsync(ct);

    public ValueTask WriteAsync(short value, CancellationToken ct)
    {
        Span<byte> buffer = stackalloc byte[3];
        buffer[0] = ValueTag;
        BinaryPrimitives.WriteInt16LittleEndian(buffer[1..], value);
        hash.AppendData(buffer);
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteAsync(value, NpgsqlDbType.Smallint, ct));
    }

    public ValueTask WriteAsync(bool value, CancellationToken ct)
    {
        hash.AppendData([ValueTag, value ? (byte)1 : (byte)0]);
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteAsync(value, NpgsqlDbType.Boolean, ct));
    }

    public ValueTask WriteAsync(decimal value, CancellationToken ct)
    {
        // The invariant text, not decimal.GetBits: 1.5m and 1.50m are the same numeric value in PostgreSQL.
        AppendText(value.ToString("0.############################", System.Globalization.CultureInfo.InvariantCulture));
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteAsync(value, NpgsqlDbType.Numeric, ct));
    }

    public ValueTask WriteAsync(decimal? value, CancellationToken ct) =>
        value is { } v ? WriteAsync(v, ct) : WriteNullAsync(ct);

    public ValueTask WriteAsync(DateTime value, CancellationToken ct)
    {
        Span<byte> buffer = stackalloc byte[9];
        buffer[0] = ValueTag;
        BinaryPrimitives.WriteInt64LittleEndian(buffer[1..], value.Ticks);
        hash.AppendData(buffer);
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteAsync(value, NpgsqlDbType.Timestamp, ct));
    }

    public ValueTask WriteAsync(DateTime? value, CancellationToken ct) =>
        value is { } v ? WriteAsync(v, ct) : WriteNullAsync(ct);

    public ValueTask WriteAsync(Guid value, CancellationToken ct)
    {
        Span<byte> buffer = stackalloc byte[17];
        buffer[0] = ValueTag;
        value.TryWriteBytes(buffer[1..], bigEndian: true, out _);
        hash.AppendData(buffer);
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteAsync(value, NpgsqlDbType.Uuid, ct));
    }

    public ValueTask WriteAsync(string? value, NpgsqlDbType type, CancellationToken ct)
    {
        if (value is null)
        {
            return WriteNullAsync(ct);
        }
        AppendText(value);
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteAsync(value, type, ct));
    }

    private ValueTask WriteNullAsync(CancellationToken ct)
    {
        hash.AppendData([NullTag]);
        return Importer is null ? ValueTask.CompletedTask : new(Importer.WriteNullAsync(ct));
    }

    private void AppendText(string text)
    {
        var byteCount = Encoding.UTF8.GetByteCount(text);
        Span<byte> buffer = byteCount <= 256 ? stackalloc byte[byteCount + 5] : new byte[byteCount + 5];
        buffer[0] = ValueTag;
        BinaryPrimitives.WriteInt32LittleEndian(buffer[1..], byteCount);
        Encoding.UTF8.GetBytes(text, buffer[5..]);
        hash.AppendData(buffer);
    }
}
