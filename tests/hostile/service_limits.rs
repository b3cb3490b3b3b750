//! Hostile requests and receivers at the service: slow bodies, slow webhook receivers, private
//! callback addresses, restarts mid-edit.
