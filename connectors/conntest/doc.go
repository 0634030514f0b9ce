// Package conntest helps test connector runtimes: it turns a CREATE TABLE
// statement into the connector.Spec a factory receives, through the real parser
// and catalog, so that tests exercise options exactly as a job file gives
// them (defaults applied, values validated).
package conntest
