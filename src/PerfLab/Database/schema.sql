-- AdventureWorks-shaped schema (the three tables seed 000's CMS reads), PostgreSQL dialect.
-- Quoted PascalCase names keep the original column names, so EF Core maps them without configuration.
-- SQL Server types map as: money -> numeric(19,4), tinyint -> smallint, bit -> boolean,
-- datetime -> timestamp without time zone, uniqueidentifier -> uuid, nvarchar(n) -> varchar(n).
CREATE SCHEMA IF NOT EXISTS "Production";
CREATE SCHEMA IF NOT EXISTS "Sales";
CREATE SCHEMA IF NOT EXISTS perflab;

CREATE TABLE "Production"."Product" (
    "ProductID"             integer       NOT NULL PRIMARY KEY,
    "Name"                  varchar(50)   NOT NULL,
    "ProductNumber"         varchar(25)   NOT NULL,
    "MakeFlag"              boolean       NOT NULL,
    "FinishedGoodsFlag"     boolean       NOT NULL,
    "Color"                 varchar(15)   NULL,
    "SafetyStockLevel"      smallint      NOT NULL,
    "ReorderPoint"          smallint      NOT NULL,
    "StandardCost"          numeric(19,4) NOT NULL,
    "ListPrice"             numeric(19,4) NOT NULL,
    "Size"                  varchar(5)    NULL,
    "SizeUnitMeasureCode"   char(3)       NULL,
    "WeightUnitMeasureCode" char(3)       NULL,
    "Weight"                numeric(8,2)  NULL,
    "DaysToManufacture"     integer       NOT NULL,
    "ProductLine"           char(2)       NULL,
    "Class"                 char(2)       NULL,
    "Style"                 char(2)       NULL,
    "ProductSubcategoryID"  integer       NULL,
    "ProductModelID"        integer       NULL,
    "SellStartDate"         timestamp     NOT NULL,
    "SellEndDate"           timestamp     NULL,
    "DiscontinuedDate"      timestamp     NULL,
    "rowguid"               uuid          NOT NULL,
    "ModifiedDate"          timestamp     NOT NULL
);

CREATE TABLE "Sales"."SalesOrderHeader" (
    "SalesOrderID"           integer       NOT NULL PRIMARY KEY,
    "RevisionNumber"         smallint      NOT NULL,
    "OrderDate"              timestamp     NOT NULL,
    "DueDate"                timestamp     NOT NULL,
    "ShipDate"               timestamp     NULL,
    "Status"                 smallint      NOT NULL,
    "OnlineOrderFlag"        boolean       NOT NULL,
    "SalesOrderNumber"       varchar(25)   GENERATED ALWAYS AS ('SO' || "SalesOrderID"::text) STORED,
    "PurchaseOrderNumber"    varchar(25)   NULL,
    "AccountNumber"          varchar(15)   NULL,
    "CustomerID"             integer       NOT NULL,
    "SalesPersonID"          integer       NULL,
    "TerritoryID"            integer       NULL,
    "BillToAddressID"        integer       NOT NULL,
    "ShipToAddressID"        integer       NOT NULL,
    "ShipMethodID"           integer       NOT NULL,
    "CreditCardID"           integer       NULL,
    "CreditCardApprovalCode" varchar(15)   NULL,
    "CurrencyRateID"         integer       NULL,
    "SubTotal"               numeric(19,4) NOT NULL,
    "TaxAmt"                 numeric(19,4) NOT NULL,
    "Freight"                numeric(19,4) NOT NULL,
    "TotalDue"               numeric(19,4) GENERATED ALWAYS AS ("SubTotal" + "TaxAmt" + "Freight") STORED,
    "Comment"                varchar(128)  NULL,
    "rowguid"                uuid          NOT NULL,
    "ModifiedDate"           timestamp     NOT NULL
);

CREATE TABLE "Sales"."SalesOrderDetail" (
    "SalesOrderID"          integer       NOT NULL REFERENCES "Sales"."SalesOrderHeader" ("SalesOrderID"),
    "SalesOrderDetailID"    integer       NOT NULL,
    "CarrierTrackingNumber" varchar(25)   NULL,
    "OrderQty"              smallint      NOT NULL,
    "ProductID"             integer       NOT NULL REFERENCES "Production"."Product" ("ProductID"),
    "SpecialOfferID"        integer       NOT NULL,
    "UnitPrice"             numeric(19,4) NOT NULL,
    "UnitPriceDiscount"     numeric(19,4) NOT NULL,
    "LineTotal"             numeric(38,6) GENERATED ALWAYS AS ("UnitPrice" * (1 - "UnitPriceDiscount") * "OrderQty") STORED,
    "rowguid"               uuid          NOT NULL,
    "ModifiedDate"          timestamp     NOT NULL,
    PRIMARY KEY ("SalesOrderID", "SalesOrderDetailID")
);

-- Which schema and data this database holds; perflab compares it with what it would seed.
CREATE TABLE perflab.schema_info (
    "SchemaVersion" integer     NOT NULL,
    "Seed"          integer     NOT NULL,
    "Checksum"      text        NOT NULL,
    "SeededAt"      timestamptz NOT NULL DEFAULT now()
);
