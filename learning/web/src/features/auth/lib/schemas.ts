import { z } from "zod";
import { limitMessage, tooLong, type TextField } from "@/lib/text-limits";

export const STUDENT_LEVELS = [
  { value: "debutant", label: "Débutant" },
  { value: "intermédiaire", label: "Intermédiaire" },
  { value: "avancé", label: "Avancé" },
] as const;

export type StudentLevel = (typeof STUDENT_LEVELS)[number]["value"];

export const PASSWORD_MIN = 6;
export const FILL_ALL_FIELDS = "Veuillez remplir tous les champs";

/** Login: both fields non-blank after trimming; the email is trimmed. */
export const loginSchema = z.object({
  email: z.string().trim().min(1, FILL_ALL_FIELDS),
  password: z.string().refine((v) => v.trim().length > 0, FILL_ALL_FIELDS),
});
export type LoginValues = z.infer<typeof loginSchema>;

/** A text within the database's bound for the field (the profile keeps it as typed, trimmed). */
const bounded = (field: TextField) => (v: string) => !tooLong(field, v);

export const registerSchema = z
  .object({
    nom: z.string().trim().min(1, "Le nom est requis").refine(bounded("fullName"), limitMessage("fullName")),
    email: z.string().trim().min(1, "Email requis").email("Email invalide"),
    country: z.string().trim().min(1, "Pays requis").refine(bounded("country"), limitMessage("country")),
    whatsappNumber: z.string().trim().min(1, "Numéro WhatsApp requis").refine(bounded("whatsapp"), limitMessage("whatsapp")),
    studentLevel: z.enum(["debutant", "intermédiaire", "avancé"]),
    password: z.string().min(PASSWORD_MIN, `Le mot de passe doit contenir au moins ${PASSWORD_MIN} caractères`),
    confirmPassword: z.string().min(1, "Veuillez confirmer votre mot de passe"),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Les mots de passe ne correspondent pas",
    path: ["confirmPassword"],
  });
export type RegisterValues = z.infer<typeof registerSchema>;

export const registerDefaults: RegisterValues = {
  nom: "",
  email: "",
  country: "",
  whatsappNumber: "",
  studentLevel: "debutant",
  password: "",
  confirmPassword: "",
};

/** Password change (account page) and recovery: same minimum, matching confirmation. */
export const newPasswordSchema = z
  .object({
    password: z.string().min(PASSWORD_MIN, `Le mot de passe doit contenir au moins ${PASSWORD_MIN} caractères`),
    confirmPassword: z.string().min(1, "Veuillez confirmer votre mot de passe"),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Les mots de passe ne correspondent pas",
    path: ["confirmPassword"],
  });
export type NewPasswordValues = z.infer<typeof newPasswordSchema>;

export const recoverSchema = z.object({
  email: z.string().trim().min(1, "Email requis").email("Email invalide"),
});
