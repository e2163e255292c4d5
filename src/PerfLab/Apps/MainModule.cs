namespace PerfLab.Apps;

/// <summary>
/// The main assembly of a running .NET app, named as a trace names its module: read from the process's command line
/// ("dotnet TinyShop.dll" or an apphost "TinyShop"). A trace counts that module's frames as the app's own code.
/// </summary>
public static class MainModule
{
    /// <summary>The module of process <paramref name="pid"/>; null when its command line cannot be read.</summary>
    public static string? Of(int pid) => Of(RuntimeObservation.CommandLine(pid));

    /// <summary>The first argument naming a .dll, else the program itself unless it is the dotnet host.</summary>
    public static string? Of(IReadOnlyList<string> commandLine)
    {
        var dll = commandLine.Skip(1).FirstOrDefault(a => a.EndsWith(".dll", StringComparison.OrdinalIgnoreCase));
        if (dll is not null)
        {
            return Path.GetFileNameWithoutExtension(dll);
        }
        var program = commandLine.Count > 0 ? Path.GetFileName(commandLine[0]) : "";
        return program is "" or "dotnet" ? null : program;
    }
}
