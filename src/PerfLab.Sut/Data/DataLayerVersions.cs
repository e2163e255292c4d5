using System.Reflection;

namespace PerfLab.Sut.Data;

/// <summary>
/// The data-access assemblies this process has loaded, with the versions their packages carry (the informational
/// version, without the commit): what really serves the pages, whatever the build was asked to pin. Null where the
/// assembly is not loaded. An ADO.NET SUT has EF Core loaded too, unused: MVC's controller discovery loads every type
/// of the app, the DbContext among them; <c>DataLayer</c> in /info says which one serves.
/// </summary>
/// <param name="EfCore">Microsoft.EntityFrameworkCore.</param>
/// <param name="EfCoreProvider">Npgsql.EntityFrameworkCore.PostgreSQL, the EF Core provider.</param>
/// <param name="Npgsql">Npgsql, the driver both data layers go through.</param>
public sealed record DataLayerVersions(string? EfCore, string? EfCoreProvider, string? Npgsql)
{
    public static DataLayerVersions Loaded()
    {
        var loaded = AppDomain.CurrentDomain.GetAssemblies();
        string? Of(string name) => loaded.FirstOrDefault(a => a.GetName().Name == name) is { } assembly ? VersionOf(assembly) : null;
        return new(Of("Microsoft.EntityFrameworkCore"), Of("Npgsql.EntityFrameworkCore.PostgreSQL"), Of("Npgsql"));
    }

    private static string? VersionOf(Assembly assembly)
    {
        var informational = assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
        return informational is null ? assembly.GetName().Version?.ToString() : informational.Split('+')[0];
    }
}
