using System.Globalization;
using System.Text;
using System.Text.Json;

namespace PerfLab.Counters;

public enum CounterFileFormat
{
    Json,
    Csv,
}

/// <summary>Writes a <see cref="CounterRecording"/> as JSON (everything) or CSV (the per-second timeline only).</summary>
public static class CounterFiles
{
    public static readonly JsonSerializerOptions JsonOptions = new(JsonSerializerDefaults.Web) { WriteIndented = true };

    public static CounterFileFormat? FormatFromExtension(string path) => Path.GetExtension(path).ToLowerInvariant() switch
    {
        ".json" => CounterFileFormat.Json,
        ".csv" => CounterFileFormat.Csv,
        _ => null,
    };

    public static async Task WriteAsync(CounterRecording recording, string path, CounterFileFormat format, CancellationToken ct = default)
    {
        var folder = Path.GetDirectoryName(Path.GetFullPath(path));
        if (folder is not null)
        {
            Directory.CreateDirectory(folder);
        }
        await using var stream = File.Create(path);
        if (format == CounterFileFormat.Json)
        {
            await JsonSerializer.SerializeAsync(stream, recording, JsonOptions, ct).ConfigureAwait(false);
        }
        else
        {
            var csv = Encoding.UTF8.GetBytes(ToCsv(recording));
            await stream.WriteAsync(csv, ct).ConfigureAwait(false);
        }
    }

    public static CounterRecording ReadJson(string path) =>
        JsonSerializer.Deserialize<CounterRecording>(File.ReadAllText(path), JsonOptions)
        ?? throw new InvalidDataException($"{path} holds no counter recording.");

    /// <summary>One row per second: unix_seconds, utc, then one column per counter; an empty cell where nothing was published.</summary>
    public static string ToCsv(CounterRecording recording)
    {
        var names = recording.Counters.Select(c => c.Name).ToList();
        var csv = new StringBuilder();
        csv.Append("unix_seconds,utc");
        foreach (var name in names)
        {
            csv.Append(',').Append(name);
        }
        csv.Append('\n');
        foreach (var sample in recording.Samples)
        {
            csv.Append(sample.UnixSeconds.ToString(CultureInfo.InvariantCulture)).Append(',')
               .Append(DateTimeOffset.FromUnixTimeSeconds(sample.UnixSeconds).UtcDateTime.ToString("yyyy-MM-ddTHH:mm:ssZ",
                   CultureInfo.InvariantCulture));
            foreach (var name in names)
            {
                csv.Append(',');
                if (sample.Values.TryGetValue(name, out var v))
                {
                    csv.Append(Format(v));
                }
            }
            csv.Append('\n');
        }
        return csv.ToString();
    }

    public static string Format(double value) => value.ToString("0.###", CultureInfo.InvariantCulture);
}
