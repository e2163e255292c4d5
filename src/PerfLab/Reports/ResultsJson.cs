using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;
using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>results.json: writing a run's result graph and reading it back to re-render or compare it.</summary>
public static class ResultsJson
{
    public const string FileName = "results.json";

    /// <summary>
    /// camelCase names and enum values ("better", "ok", "syncOverAsync"), indented; a figure that could not be computed
    /// is null, a duration is seconds; dictionary keys (scenario and counter names) kept as they are.
    /// </summary>
    public static JsonSerializerOptions Options { get; } = CreateOptions();

    public static string Serialize(RunResults results) => JsonSerializer.Serialize(results, Options);

    /// <summary>Parses results.json text; <paramref name="source"/> names it in error messages.</summary>
    public static RunResults Deserialize(string json, string source)
    {
        int? version;
        try
        {
            using var document = JsonDocument.Parse(json);
            version = document.RootElement.ValueKind == JsonValueKind.Object
                && document.RootElement.TryGetProperty("schemaVersion", out var v)
                && v.TryGetInt32(out var n) ? n : null;
        }
        catch (JsonException ex)
        {
            throw new PerfLabException($"{source} is not valid JSON (line {ex.LineNumber + 1}): {ex.Message}", ExitCode.Usage, ex);
        }

        if (version is null)
        {
            throw new PerfLabException($"{source} has no schemaVersion: it is not a perflab results file.", ExitCode.Usage);
        }
        // Version 1 wrote NaN as "NaN", durations as "00:00:40" and most enum values in PascalCase: the options read both.
        if (version is not (1 or RunResults.CurrentSchemaVersion))
        {
            throw new PerfLabException(
                $"{source} has schema version {version}, but this perflab reads schema versions 1 to {RunResults.CurrentSchemaVersion}; " +
                "render it with the perflab version that wrote it, or run the experiments again.",
                ExitCode.Usage);
        }

        try
        {
            var results = JsonSerializer.Deserialize<RunResults>(json, Options)
                ?? throw new PerfLabException($"{source} holds null instead of a run.", ExitCode.Usage);
            return version == 1 ? FromVersion1(results) : results;
        }
        catch (JsonException ex)
        {
            throw new PerfLabException(
                $"{source} does not match results schema version {RunResults.CurrentSchemaVersion} " +
                $"(line {ex.LineNumber + 1}, at {ex.Path ?? "$"}): {ex.Message}",
                ExitCode.Usage, ex);
        }
    }

    /// <summary>
    /// Version 1 printed a change that rounds to zero from below as "-+0 %" in a claim's figure; the text is stored, so it
    /// is mended on reading rather than carried into every re-rendered report.
    /// </summary>
    private static RunResults FromVersion1(RunResults results) => results with
    {
        SchemaVersion = RunResults.CurrentSchemaVersion,
        Experiments = [.. results.Experiments.Select(e => e with
        {
            Claims = [.. e.Claims.Select(c => c with { OurFigure = c.OurFigure.Replace("(-+0 %)", "(0 %)", StringComparison.Ordinal) })],
        })],
    };

    public static RunResults Read(string path) => Deserialize(File.ReadAllText(path), path);

    /// <summary>
    /// Reads the results of a run folder (or a results.json named directly), with the user-facing errors of
    /// <c>perflab report</c> and <c>perflab compare-results</c>.
    /// </summary>
    public static RunResults ReadFolder(string folderOrFile)
    {
        if (File.Exists(folderOrFile))
        {
            return Read(folderOrFile);
        }
        if (!Directory.Exists(folderOrFile))
        {
            throw new PerfLabException($"'{folderOrFile}' does not exist; give a result folder written by 'perflab run'.", ExitCode.Usage);
        }
        var path = Path.Combine(folderOrFile, FileName);
        if (!File.Exists(path))
        {
            throw new PerfLabException($"'{folderOrFile}' has no {FileName}; is it a result folder written by 'perflab run'?",
                ExitCode.Usage);
        }
        return Read(path);
    }

    private static JsonSerializerOptions CreateOptions()
    {
        var options = new JsonSerializerOptions(JsonSerializerDefaults.Web)
        {
            WriteIndented = true,
            // results.json is read by people and never embedded in a page as is (report.html escapes its own copy).
            Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
            UnmappedMemberHandling = JsonUnmappedMemberHandling.Skip,
        };
        // One casing for every enum, the names' own (camelCase); an options converter outranks a type's attribute. The
        // verdict words come first: they also read the names of files written before the four verdicts.
        options.Converters.Add(new LowerCaseEnumConverter<Verdict>());
        options.Converters.Add(new LowerCaseEnumConverter<ClaimOutcome>());
        options.Converters.Add(new JsonStringEnumConverter(JsonNamingPolicy.CamelCase));
        // A run that measured nothing leaves NaN in a mean: written as null, not lost to an exception.
        options.Converters.Add(new FiniteOrNullConverter());
        options.Converters.Add(new SecondsConverter());
        options.MakeReadOnly(populateMissingResolver: true);
        return options;
    }
}
