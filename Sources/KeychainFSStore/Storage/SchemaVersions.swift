import Foundation

/// The item tables of each shipped schema version, frozen as the SQL that version ran (the way Apple's
/// securityd keeps each schema version as data): a migration is written against these, never against
/// today's schema table, so adding an attribute cannot silently change what an older version means.
/// ``ItemTable/createStatements(_:)`` must still produce the latest version exactly (SchemaVersionTests):
/// a change to the schema's stored attributes needs a new version here and a migration to it.
package enum SchemaVersions {
    /// Version 1: the tables of vault formats 1 to 3 (formats 2 and 3 changed other tables only).
    package static let v1: [String] = [
        """
        CREATE TABLE genp (
          rowid INTEGER PRIMARY KEY AUTOINCREMENT,
          uuid BLOB NOT NULL UNIQUE,
          keyclass INTEGER NOT NULL,
          metadata BLOB NOT NULL,
          rowkey BLOB NOT NULL,
          secret BLOB,
          h_cdat BLOB,
          h_mdat BLOB,
          h_labl BLOB,
          h_agrp BLOB NOT NULL,
          h_pdmn BLOB,
          h_sync BLOB NOT NULL,
          h_tomb BLOB,
          h_vwht BLOB NOT NULL,
          h_tkid BLOB NOT NULL,
          h_musr BLOB NOT NULL,
          h_ggrp BLOB NOT NULL,
          h_accc BLOB,
          h_desc BLOB,
          h_icmt BLOB,
          h_crtr BLOB,
          h_type BLOB,
          h_scrp BLOB,
          h_alis BLOB,
          h_invi BLOB,
          h_nega BLOB,
          h_cusi BLOB,
          h_acct BLOB NOT NULL,
          h_svce BLOB NOT NULL,
          h_gena BLOB,
          UNIQUE(h_acct, h_svce, h_agrp, h_sync, h_vwht, h_tkid, h_musr, h_ggrp))
        """,
        "CREATE INDEX genp_labl ON genp(h_labl)",
        "CREATE INDEX genp_svce ON genp(h_svce)",
        """
        CREATE TABLE inet (
          rowid INTEGER PRIMARY KEY AUTOINCREMENT,
          uuid BLOB NOT NULL UNIQUE,
          keyclass INTEGER NOT NULL,
          metadata BLOB NOT NULL,
          rowkey BLOB NOT NULL,
          secret BLOB,
          h_cdat BLOB,
          h_mdat BLOB,
          h_labl BLOB,
          h_agrp BLOB NOT NULL,
          h_pdmn BLOB,
          h_sync BLOB NOT NULL,
          h_tomb BLOB,
          h_vwht BLOB NOT NULL,
          h_tkid BLOB NOT NULL,
          h_musr BLOB NOT NULL,
          h_ggrp BLOB NOT NULL,
          h_accc BLOB,
          h_desc BLOB,
          h_icmt BLOB,
          h_crtr BLOB,
          h_type BLOB,
          h_scrp BLOB,
          h_alis BLOB,
          h_invi BLOB,
          h_nega BLOB,
          h_cusi BLOB,
          h_acct BLOB NOT NULL,
          h_sdmn BLOB NOT NULL,
          h_srvr BLOB NOT NULL,
          h_ptcl BLOB NOT NULL,
          h_atyp BLOB NOT NULL,
          h_port BLOB NOT NULL,
          h_path BLOB NOT NULL,
          UNIQUE(h_acct, h_srvr, h_agrp, h_sync, h_vwht, h_tkid, h_musr, h_ggrp, h_sdmn, h_ptcl, h_atyp, h_port, h_path))
        """,
        "CREATE INDEX inet_labl ON inet(h_labl)",
        "CREATE INDEX inet_srvr ON inet(h_srvr)",
        """
        CREATE TABLE keys (
          rowid INTEGER PRIMARY KEY AUTOINCREMENT,
          uuid BLOB NOT NULL UNIQUE,
          keyclass INTEGER NOT NULL,
          metadata BLOB NOT NULL,
          rowkey BLOB NOT NULL,
          secret BLOB,
          h_cdat BLOB,
          h_mdat BLOB,
          h_labl BLOB,
          h_agrp BLOB NOT NULL,
          h_pdmn BLOB,
          h_sync BLOB NOT NULL,
          h_tomb BLOB,
          h_vwht BLOB NOT NULL,
          h_tkid BLOB NOT NULL,
          h_musr BLOB NOT NULL,
          h_ggrp BLOB NOT NULL,
          h_accc BLOB,
          h_kcls BLOB NOT NULL,
          h_alis BLOB,
          h_klbl BLOB NOT NULL,
          h_atag BLOB NOT NULL,
          h_crtr BLOB NOT NULL,
          h_type BLOB NOT NULL,
          h_bsiz BLOB NOT NULL,
          h_esiz BLOB NOT NULL,
          h_sdat BLOB NOT NULL,
          h_edat BLOB NOT NULL,
          h_perm BLOB,
          h_priv BLOB,
          h_modi BLOB,
          h_sens BLOB,
          h_asen BLOB,
          h_extr BLOB,
          h_next BLOB,
          h_encr BLOB,
          h_decr BLOB,
          h_drve BLOB,
          h_sign BLOB,
          h_vrfy BLOB,
          h_snrc BLOB,
          h_vyrc BLOB,
          h_wrap BLOB,
          h_unwp BLOB,
          UNIQUE(h_kcls, h_atag, h_agrp, h_sync, h_vwht, h_tkid, h_musr, h_ggrp, h_klbl, h_crtr, h_type, h_bsiz, h_esiz, h_sdat, h_edat))
        """,
        "CREATE INDEX keys_labl ON keys(h_labl)",
        "CREATE INDEX keys_klbl ON keys(h_klbl)",
        "CREATE INDEX keys_atag ON keys(h_atag)",
        """
        CREATE TABLE cert (
          rowid INTEGER PRIMARY KEY AUTOINCREMENT,
          uuid BLOB NOT NULL UNIQUE,
          keyclass INTEGER NOT NULL,
          metadata BLOB NOT NULL,
          rowkey BLOB NOT NULL,
          secret BLOB,
          h_cdat BLOB,
          h_mdat BLOB,
          h_labl BLOB,
          h_agrp BLOB NOT NULL,
          h_pdmn BLOB,
          h_sync BLOB NOT NULL,
          h_tomb BLOB,
          h_vwht BLOB NOT NULL,
          h_tkid BLOB NOT NULL,
          h_musr BLOB NOT NULL,
          h_ggrp BLOB NOT NULL,
          h_accc BLOB,
          h_ctyp BLOB NOT NULL,
          h_cenc BLOB,
          h_alis BLOB,
          h_subj BLOB,
          h_issr BLOB NOT NULL,
          h_slnr BLOB NOT NULL,
          h_skid BLOB,
          h_pkhh BLOB,
          UNIQUE(h_slnr, h_agrp, h_sync, h_vwht, h_tkid, h_musr, h_ggrp, h_ctyp, h_issr))
        """,
        "CREATE INDEX cert_labl ON cert(h_labl)",
        "CREATE INDEX cert_pkhh ON cert(h_pkhh)",
    ]

    /// The latest frozen version: what a new vault's migrations create.
    package static let latest = v1

    /// A frozen statement that leaves an existing table or index alone (format 1 recorded no migration).
    package static func ifNotExists(_ statement: String) -> String {
        for verb in ["CREATE TABLE ", "CREATE INDEX "] where statement.hasPrefix(verb) {
            return verb + "IF NOT EXISTS " + statement.dropFirst(verb.count)
        }
        return statement
    }

    /// A statement as SQLite keeps it in `sqlite_master` (without IF NOT EXISTS), to compare versions.
    package static func normalized(_ statement: String) -> String {
        statement.replacingOccurrences(of: " IF NOT EXISTS", with: "")
    }
}
