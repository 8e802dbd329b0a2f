package httpapi

import (
	"net/http"

	"github.com/integration-connect/connect"
)

// appointmentRoutes are the appointment request preview's routes, under
// AppointmentsBasePath whatever the import API's base path is.
func (h *Handler) appointmentRoutes() []route {
	if h.cfg.Appointments == nil {
		return nil
	}
	base := AppointmentsBasePath + "/appointment-requests"
	return []route{
		{http.MethodPost, base, connect.Required.SubmitAppointment, true, h.submitAppointment},
		{http.MethodGet, base + "/:id", connect.Required.ReadAppointments, false, h.getAppointment},
		{http.MethodGet, base + "/:id/status", connect.Required.ReadAppointments, false, h.appointmentStatus},
		{http.MethodPost, base + "/:id/cancel", connect.Required.CancelAppointment, true, h.cancelAppointment},
	}
}

// submitAppointment answers POST /connect/v1/appointment-requests with 201 and
// the whole record.
func (h *Handler) submitAppointment(w http.ResponseWriter, r *http.Request, c call) error {
	opts, body, err := h.readWrite(w, r, connect.CodeInvalidRequest)
	if err != nil {
		return err
	}
	out, err := h.cfg.Appointments.SubmitAppointmentRequestJSON(r.Context(), c.caller, body, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, out.Request)
}

func (h *Handler) getAppointment(w http.ResponseWriter, r *http.Request, c call) error {
	req, err := h.cfg.Appointments.GetAppointmentRequest(r.Context(), c.caller, c.params.ByName("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, req)
}

func (h *Handler) appointmentStatus(w http.ResponseWriter, r *http.Request, c call) error {
	status, err := h.cfg.Appointments.AppointmentRequestStatus(r.Context(), c.caller, c.params.ByName("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, status)
}

// cancelAppointment answers POST …/{id}/cancel with 200; cancelling a cancelled
// request answers the original cancellation.
func (h *Handler) cancelAppointment(w http.ResponseWriter, r *http.Request, c call) error {
	opts, body, err := h.readWrite(w, r, connect.CodeInvalidRequest)
	if err != nil {
		return err
	}
	out, err := h.cfg.Appointments.CancelAppointmentRequestJSON(r.Context(), c.caller, c.params.ByName("id"), body, opts)
	if err := h.finishWrite(w, r, out.Replayed, err); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out.Response)
}
