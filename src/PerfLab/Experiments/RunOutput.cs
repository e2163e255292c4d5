using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Experiments;

/// <summary>Writes a run's outputs into its folder. (Interim: results.json only, until the report writers land.)</summary>
public static class RunOutput
{
    public static async Task WriteAsync(RunResults results, string folder)
    {
        Directory.CreateDirectory(folder);
        var options = new JsonSerializerOptions(JsonSerializerDefaults.Web) { WriteIndented = true, NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals };
        await File.WriteAllTextAsync(Path.Combine(folder, "results.json"), JsonSerializer.Serialize(results, options));
    }
}
